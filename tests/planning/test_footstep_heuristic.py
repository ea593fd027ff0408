"""The footstep planner's heuristic never overestimates: against exhaustive searches over
every action sequence of a few steps, and on every step they generate (``h(u) <= c(u, v) +
h(v)``); and it is tighter than counting the fewest steps."""

import math

import numpy as np
import pytest

from wayfinding.planning.footstep_model import (
    LocomotionModel,
    bending_energy,
    least_energy_per_metre,
    top_speed,
)
from wayfinding.planning.footsteps import DURATIONS, SPEEDS, TURNS, _actions, _State, _Steps

DEPTH = 3


def graph_and_root(model, goal, hyperbola):
    actions = _actions(model, TURNS, SPEEDS, DURATIONS)
    graph = _Steps(model, goal, 0.3, actions, hyperbola, [], 0.05, 0.1, math.inf,
                   np.zeros(0))
    foot = (0.0, -model.foot_offset)
    root = _State((0.0, 0.0), (1.2, 0.0), foot, 1, 0.0, 0.0, 0.0, None, None, goal)
    return graph, root


def cheapest_to_goal(graph, s, depth, edges):
    """The least cost from ``s`` to the goal over every sequence of at most ``depth``
    steps (inf: none), recording each step generated in ``edges``."""
    if graph.is_goal(s):
        return 0.0
    if depth == 0:
        return math.inf
    best = math.inf
    for child, cost in graph.successors(s):
        edges.append((s, child, cost))
        best = min(best, cost + cheapest_to_goal(graph, child, depth - 1, edges))
    return best


@pytest.mark.parametrize("hyperbola", [False, True])
@pytest.mark.parametrize("goal", [(1.5, 0.0), (1.3, 0.2), (1.0, -0.3)])
def test_heuristic_is_below_the_exhaustive_optimum(hyperbola, goal):
    model = LocomotionModel()
    graph, root = graph_and_root(model, goal, hyperbola)
    edges: list = []
    best = cheapest_to_goal(graph, root, DEPTH, edges)
    assert math.isfinite(best) and len(edges) > 100
    assert 0 < graph.heuristic(root, None) <= best
    # every step generated: the heuristic drops by no more than the step costs
    for u, v, cost in edges:
        assert graph.heuristic(u, None) <= cost + graph.heuristic(v, None) + 1e-9
    # and from each state the goal is reached from, no more than its cheapest way there
    for u, _, _ in edges[:200]:
        rest = cheapest_to_goal(graph, u, DEPTH - 1, [])
        assert graph.heuristic(u, None) <= rest


def test_steps_never_outrun_the_speed_bound():
    model = LocomotionModel()
    for hyperbola in (False, True):
        graph, root = graph_and_root(model, (5.0, 0.0), hyperbola)
        top = float(top_speed(model, graph.speeds.max(), hyperbola))
        frontier = [root]
        for _ in range(2):
            frontier = [c for s in frontier for c, _ in graph.successors(s)]
            for s in frontier:
                t = np.linspace(s.curve.t0, s.curve.t1, 50)
                _, vel = s.curve.world(t, model)
                assert np.hypot(*vel.T).max() <= top + 1e-9


def test_heuristic_is_tighter_than_counting_steps():
    model = LocomotionModel()
    graph, root = graph_and_root(model, (6.0, 0.0), False)
    d = 6.0 - 0.3
    counting = model.rate * model.step_duration[0] * math.ceil(d / model.stride[2]) \
        + bending_energy(model, model.alpha, d)
    assert graph.heuristic(root, None) > 1.3 * counting
    assert graph.heuristic(root, None) == pytest.approx(
        d * least_energy_per_metre(model, graph.speeds, graph.durations))
