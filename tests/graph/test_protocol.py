"""Any object with ``successors`` is a graph for the generic searches."""

import math

import pytest

from wayfinding import Graph, InvalidQueryError, find_path


class Ring:
    """n nodes on a ring, unit steps clockwise, cost 3 counter-clockwise."""

    def __init__(self, n):
        self.n = n

    def successors(self, node):
        return [((node + 1) % self.n, 1.0), ((node - 1) % self.n, 3.0)]


def test_user_objects_satisfy_the_protocol():
    assert isinstance(Ring(5), Graph)
    r = find_path(Ring(10), 0, 7)
    assert r.found and r.cost == 7.0 and r.path == list(range(8))
    d = find_path(Ring(10), 0, 7, method="dijkstra")
    assert d.cost == 7.0


def test_user_heuristic_on_a_user_graph():
    r = find_path(Ring(10), 0, 9, heuristic=lambda n, g: 0.0)
    assert r.cost == 3.0 and r.path == [0, 9]


def test_unreachable_and_same_node():
    class Island:
        def successors(self, node):
            return []

    assert not find_path(Island(), "a", "b").found
    assert math.isinf(find_path(Island(), "a", "b").cost)
    same = find_path(Island(), "a", "a")
    assert same.found and same.path == ["a"] and same.cost == 0


def test_bad_edges_and_algorithms_are_refused():
    class Bad:
        def successors(self, node):
            return [(1, -2.0)]

    with pytest.raises(InvalidQueryError, match="cost -2.0"):
        find_path(Bad(), 0, 1)
    with pytest.raises(InvalidQueryError, match="needs a Grid"):
        find_path(Ring(3), 0, 1, method="bfs")
    with pytest.raises(InvalidQueryError, match="not hashable"):
        find_path(Ring(3), [0], 1)
