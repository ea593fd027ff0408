"""``update_costs`` given arrays (keys and ``costs=``) against the same changes given as a
dict: on random grids of every diagonal rule and on random CSR graphs (edge ids and node
pairs, parallel edges), every planner repairs to the same path and cost after the same
expansions; bad arrays raise the dict form's error and change nothing."""

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import RULES, TERRAIN, seeded_grids_and_rngs, seeds

from wayfinding.errors import InvalidQueryError
from wayfinding.graph import CSRGraph
from wayfinding.grid import Grid
from wayfinding.search.incremental import ADStar, ARAStar, DStarLite, LPAStar

PLANNERS = [LPAStar, DStarLite, ARAStar, ADStar]


def same(a, b):
    """Two planners' answers are the same path, cost and work."""
    assert np.array_equal(a.path, b.path)
    assert a.cost == b.cost or (math.isinf(a.cost) and math.isinf(b.cost))
    assert (a.found, a.status, a.stats.expanded) == (b.found, b.status, b.stats.expanded)
    assert getattr(a, "epsilon", None) == getattr(b, "epsilon", None)


def answer(planner, budget):
    """The planner's current answer: a repair, or an anytime step within ``budget``."""
    if isinstance(planner, (ARAStar, ADStar)):
        return planner.plan(max_expansions=budget)
    return planner.replan()


def both_step(by_dict, by_array, rng):
    budget = None if rng.random() < 0.4 else int(rng.integers(0, 40))
    r = answer(by_dict, budget)
    same(r, answer(by_array, budget))
    return r


@settings(max_examples=40, deadline=None)
@given(data=seeded_grids_and_rngs(rules=RULES, terrain=TERRAIN, min_side=3, max_side=14),
       cls=st.sampled_from(PLANNERS))
def test_grid_changes_as_arrays_repair_as_the_dict(data, cls):
    grid, rng = data
    free = np.argwhere(grid.passable)[:, ::-1]
    assume(len(free) >= 2)
    a, b = (tuple(int(v) for v in free[i]) for i in rng.choice(len(free), 2, replace=False))
    by_dict, by_array = cls(grid, a, b), cls(grid, a, b)
    h, w = grid.shape
    for _ in range(6):
        r = both_step(by_dict, by_array, rng)
        # A few cells anywhere, some given twice (the last cost counts), costs that block,
        # free, and lower the cheapest step (the heuristic's scale); or one cost for all.
        k = int(rng.integers(1, 10))
        cells = np.stack([rng.integers(0, w, k), rng.integers(0, h, k)], axis=1)
        cells[rng.random(k) < 0.2] = cells[0]
        if rng.random() < 0.3:
            costs = float(rng.choice([np.inf, 1.0, 0.5]))
            pairs = dict.fromkeys(map(tuple, cells.tolist()), costs)
        else:
            costs = rng.choice([np.inf, 1.0, 2.0, 5.0, 0.5], k)
            pairs = dict(zip(map(tuple, cells.tolist()), costs.tolist()))
        by_dict.update_costs(pairs)
        by_array.update_costs(cells, costs=costs)
        if hasattr(by_dict, "move_start") and r.found and len(r.path) > 1 and rng.random() < 0.5:
            by_dict.move_start(tuple(r.path[1]))
            by_array.move_start(tuple(r.path[1]))
    same(answer(by_dict, None), answer(by_array, None))


def random_graph(rng, n=25, m=120):
    """Random edges (some parallel) between points, costs from 1 to 2 times their length."""
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    dup = rng.random(m) < 0.15
    src[dup], dst[dup] = src[0], dst[0]
    keep = src != dst
    coords = rng.random((n, 2)) * 10
    length = np.hypot(*(coords[dst] - coords[src]).T)
    return CSRGraph.from_edges(n, src[keep], dst[keep], (length * (1 + rng.random(m)))[keep],
                               coords=coords)


@settings(max_examples=40, deadline=None)
@given(seed=seeds, cls=st.sampled_from(PLANNERS), pairs=st.booleans())
def test_graph_changes_as_arrays_repair_as_the_dict(seed, cls, pairs):
    rng = np.random.default_rng(seed)
    g = random_graph(rng)
    src = np.repeat(np.arange(g.num_nodes), np.diff(g.indptr))
    a, b = (int(v) for v in rng.choice(g.num_nodes, 2, replace=False))
    by_dict, by_array = cls(g, a, b), cls(g, a, b)
    for _ in range(6):
        r = both_step(by_dict, by_array, rng)
        ids = rng.integers(0, g.num_edges, int(rng.integers(1, 12)))
        costs = np.asarray(g.weights)[ids] * rng.choice([0.0, 0.3, 1.0, 3.0, np.inf], len(ids))
        if pairs:           # (u, v): every parallel edge changes
            keys = np.stack([src[ids], np.asarray(g.indices)[ids]], axis=1)
            change = dict(zip(map(tuple, keys.tolist()), costs.tolist()))
        else:
            keys = ids
            change = dict(zip(ids.tolist(), costs.tolist()))
        by_dict.update_costs(change)
        by_array.update_costs(keys, costs=costs)
        if hasattr(by_dict, "move_start") and r.found and len(r.path) > 1 and rng.random() < 0.5:
            by_dict.move_start(int(r.path[1]))
            by_array.move_start(int(r.path[1]))
    same(answer(by_dict, None), answer(by_array, None))


def test_a_node_pair_changes_every_parallel_edge_and_one_cost_serves_all():
    g = CSRGraph.from_edges(3, [0, 1, 1, 0], [1, 2, 2, 2], [1.0, 1.0, 0.5, 5.0])
    planner = DStarLite(g, 0, 2)
    assert planner.replan().cost == 1.5
    planner.update_costs(np.array([[1, 2]]), costs=math.inf)
    assert planner.replan().cost == 5.0
    planner.update_costs([1, 2, 3], costs=[2.0, 0.25, 9.0])
    assert planner.replan().cost == 1.25


def test_a_key_given_twice_takes_its_last_cost():
    grid = Grid(np.ones((3, 5)))
    planner = LPAStar(grid, (0, 1), (4, 1))
    planner.update_costs([[2, 0], [2, 1], [2, 2], [2, 1]], costs=[np.inf, np.inf, np.inf, 3.0])
    # Only (2, 1) is open, at cost 3: the steps into and out of it cost 2 each.
    assert planner.replan().cost == 6.0


@pytest.mark.parametrize("keys", [np.empty((0, 2), dtype=np.int64), [], np.empty(0)])
def test_no_keys_change_nothing(keys):
    planner = ADStar(Grid(np.ones((4, 4))), (0, 0), (3, 3), epsilon=1.0)
    first = planner.plan()
    planner.update_costs(keys, costs=[])
    again = planner.plan()
    assert (again.cost, again.path.tolist()) == (first.cost, first.path.tolist())


GRID = Grid(np.ones((4, 4)))
GRAPH = CSRGraph.from_edges(3, [0, 1, 1], [1, 2, 2], [1.0, 1.0, 2.0])
INF, NAN = math.inf, math.nan
#: Bad arrays, with the dict that says the same where there is one: (world, keys, costs,
#: dict or None, what the error says).
BAD = {
    "cell outside": (GRID, [[1, 1], [9, 9]], [INF, 1.0], {(1, 1): INF, (9, 9): 1.0},
                     "outside the 4x4 grid"),
    "negative cell": (GRID, [[-1, 0]], 1.0, {(-1, 0): 1.0}, "outside"),
    "zero cost": (GRID, [[1, 1], [2, 2]], [INF, 0.0], {(1, 1): INF, (2, 2): 0.0},
                  "must be at least"),
    "NaN cost": (GRID, [[2, 2], [1, 1]], [INF, NAN], {(2, 2): INF, (1, 1): NAN},
                  "must be at least"),
    "one negative cost": (GRID, [[1, 1], [2, 1]], -1.0, {(1, 1): -1.0, (2, 1): -1.0},
                  "must be at least"),
    "first bad pair": (GRID, [[1, 1], [9, 9]], [0.0, 1.0], {(1, 1): 0.0, (9, 9): 1.0},
                       r"cell \(1, 1\)"),
    "cells not pairs": (GRID, [1, 2, 3], 1.0, None, r"\(k, 2\) array of \(x, y\) cells"),
    "cells of three": (GRID, [[1, 2, 3]], 1.0, None, r"\(k, 2\) array"),
    "one cell": (GRID, np.int64(3), 1.0, None, r"\(k, 2\) array"),
    "float cells": (GRID, [[1.0, 1.0]], 1.0, None, "must hold integers"),
    "bool cells": (GRID, [[True, False]], 1.0, None, "must hold integers"),
    "costs too many": (GRID, [[1, 1], [2, 2]], [1.0, 2.0, 3.0], None, r"one number or \(2,\)"),
    "costs of rows": (GRID, [[1, 1]], [[1.0]], None, r"one number or \(1,\)"),
    "costs not numbers": (GRID, [[1, 1]], ["a"], None, "must be numbers"),
    "costs bools": (GRID, [[1, 1]], [True], None, "not bools"),
    "dict with costs": (GRID, {(1, 1): 2.0}, [2.0], None, "own costs"),
    "array without costs": (GRID, np.array([[1, 1]]), None, None, "costs="),
    "not a mapping": (GRID, 5, None, None, "must be a mapping"),
    "edge id outside": (GRAPH, [0, 5], [7.0, 1.0], {0: 7.0, 5: 1.0}, "edge id 5 is out of range"),
    "negative edge id": (GRAPH, [-1], 1.0, {-1: 1.0}, "out of range"),
    "negative edge cost": (GRAPH, [0, 1], [7.0, -1.0], {0: 7.0, 1: -1.0}, ">= 0"),
    "NaN edge cost": (GRAPH, [0, 1], [7.0, NAN], {0: 7.0, 1: NAN}, ">= 0"),
    "no such edge": (GRAPH, [[0, 1], [0, 2]], [7.0, 1.0], {(0, 1): 7.0, (0, 2): 1.0},
                     "no edge 0 -> 2"),
    "edge end outside": (GRAPH, [[0, 1], [0, 3]], [7.0, 1.0], {(0, 1): 7.0, (0, 3): 1.0},
                         "edge end 3 is outside 0..2"),
    "pair before a bad cost": (GRAPH, [[0, 1], [0, 3]], [-1.0, 1.0],
                               {(0, 1): -1.0, (0, 3): 1.0}, ">= 0"),
    "edges of three": (GRAPH, [[0, 1, 2]], 1.0, None, r"\(k,\) array of edge ids or a \(k, 2\)"),
    "float edge ids": (GRAPH, [0.0], 1.0, None, "must hold integers"),
    "uint64 beyond int64": (GRID, np.array([[2**64 - 1, 1]], dtype=np.uint64), [1.0], None,
                            "18446744073709551615, beyond any index"),
}


@pytest.mark.parametrize("cls", PLANNERS)
@pytest.mark.parametrize("case", list(BAD))
def test_bad_arrays_raise_the_dict_error_and_change_nothing(case, cls):
    world, keys, costs, as_dict, match = BAD[case]
    ends = ((0, 0), (3, 3)) if world is GRID else (0, 2)
    planner = cls(world, *ends)
    first = answer(planner, None)
    with pytest.raises(InvalidQueryError, match=match) as got:
        planner.update_costs(keys, costs=costs)
    if as_dict is not None:
        with pytest.raises(InvalidQueryError) as want:
            cls(world, *ends).update_costs(as_dict)
        assert str(got.value) == str(want.value)
    again = answer(planner, None)
    assert (again.cost, again.path.tolist()) == (first.cost, first.path.tolist())
