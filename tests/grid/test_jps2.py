"""JPS2 (``method="jps2"``): diagonal jumps run to the wall and only jump points of straight
runs are queued; optimal, and with fewer expansions than ``jps`` on game maps."""

import math

import numpy as np
import pytest
from movingai_data import generated_grid, generated_scen, load, movingai_names

import wayfinding as wf
from wayfinding._kernels._workspace import Workspace
from wayfinding.errors import InvalidQueryError
from wayfinding.grid import GridSearch
from wayfinding.grid.jps import _find_path_jps, primary_jump_points

GAME_MAPS = ("dao/arena2", "dao/den312d", "rooms/8room_000")


def test_open_field_goes_straight_to_the_goal():
    grid = wf.Grid(np.ones((40, 90), dtype=bool))
    r = GridSearch(grid).find_path((0, 0), (80, 30), method="jps2")
    assert r.found and r.cost == pytest.approx(50 + 30 * math.sqrt(2))
    # The start's diagonal run meets the goal's row: start and goal are the only nodes.
    assert r.stats.expanded == 2
    assert r.path[:31].tolist() == [[k, k] for k in range(31)]
    assert r.path[30:].tolist() == [[x, 30] for x in range(30, 81)]


@pytest.mark.parametrize("kind", ["caves", "rooms", "maze4", "random25", "city"])
def test_only_straight_jump_points_are_expanded(kind):
    """Every node expanded besides the start and the goal is a jump point of a straight run
    (:func:`primary_jump_points`, computed by the JPS+ kernel), never a cell on a diagonal."""
    grid, scen = generated_grid(kind), generated_scen(kind)
    jp = primary_jump_points(grid).any(axis=2)
    search = GridSearch(grid)
    for p in scen.problems[:40]:
        r = search.find_path(p.start, p.goal, method="jps2", record=True)
        assert r.found and abs(r.cost - p.optimal) <= 1e-3
        inner = [tuple(c) for c in r.expanded_nodes.tolist()
                 if tuple(c) not in (tuple(p.start), tuple(p.goal))]
        assert all(jp[y, x] for x, y in inner)
        opened = [tuple(c) for c in r.open_nodes.tolist()]
        assert len(opened) == len(set(opened))


@pytest.mark.parametrize("name", movingai_names(*GAME_MAPS))
def test_fewer_expansions_than_jps_on_game_maps(name):
    grid, scen = load(name)
    search = GridSearch(grid)
    jps = jps2 = 0
    for p in scen.problems:
        a = search.find_path(p.start, p.goal, method="jps")
        b = search.find_path(p.start, p.goal, method="jps2")
        assert a.cost == pytest.approx(b.cost, abs=1e-6)
        jps += a.stats.expanded
        jps2 += b.stats.expanded
    assert jps2 < 0.9 * jps


def test_workspace_and_agent_size():
    grid = wf.Grid.from_ascii("""
    ........
    ..##....
    ........
    ........""")
    r = _find_path_jps(grid, (0, 0), (7, 3), workspace=Workspace(60), method="jps2")
    assert r.cost == pytest.approx(GridSearch(grid).find_path((0, 0), (7, 3)).cost)
    with pytest.raises(InvalidQueryError, match="workspace holds 10 nodes"):
        _find_path_jps(grid, (0, 0), (7, 3), workspace=Workspace(10), method="jps2")
    big = GridSearch(grid).find_path((0, 2), (6, 0), method="jps2", agent_size=2)
    ref = GridSearch(grid).find_path((0, 2), (6, 0), agent_size=2)
    assert big.cost == pytest.approx(ref.cost) and big.algorithm == "jps2"
