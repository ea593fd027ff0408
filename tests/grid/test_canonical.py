"""Canonical Dijkstra: equal to plain Dijkstra on every cell; jump points, re-opening, API."""

import math

import numpy as np
import pytest
from grid_oracle import oracle_costs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from movingai_data import generated_grid, load, movingai_names
from strategies import seeded_costs_and_rngs

import wayfinding as wf
from wayfinding.errors import InvalidGridError, InvalidQueryError
from wayfinding.grid import GridSearch, distance_map
from wayfinding.grid.canonical import canonical_distance_map, canonical_flood


def same(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal to 1e-9 where finite, and inf in the same cells."""
    return bool(np.array_equal(np.isinf(a), np.isinf(b))
                and np.allclose(a[np.isfinite(a)], b[np.isfinite(b)], rtol=0, atol=1e-9))


@st.composite
def maps(draw, max_side=48):
    """Random uniform maps (0-40 % obstacles, sometimes with wall segments) and sources."""
    costs, rng = draw(seeded_costs_and_rngs(max_side=max_side, open_corner="never"))
    free = np.isfinite(costs)
    h, w = free.shape
    for _ in range(draw(st.integers(0, 4))):
        if rng.random() < 0.5:
            free[rng.integers(h), rng.integers(w) // 2:rng.integers(w) + 1] = False
        else:
            free[rng.integers(h) // 2:rng.integers(h) + 1, rng.integers(w)] = False
    cells = np.argwhere(free)
    if len(cells) == 0:
        free[0, 0] = True
        cells = np.array([[0, 0]])
    picks = draw(st.lists(st.integers(0, len(cells) - 1), min_size=1, max_size=3))
    return free, [(int(cells[i][1]), int(cells[i][0])) for i in picks]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=maps())
def test_equals_plain_dijkstra_everywhere(case):
    free, sources = case
    grid = wf.Grid(free)
    want = GridSearch(grid).distance_map(sources, method="dijkstra")
    got, stats = canonical_flood(grid, sources)
    assert same(got, want)
    assert stats.reached == int(np.isfinite(want).sum())
    assert stats.pushes <= stats.reached + stats.reopened


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=maps(max_side=24))
def test_equals_independent_oracle(case):
    free, sources = case
    want = oracle_costs(np.where(free, 1.0, np.inf), "no_corner_cutting", sources[0])
    assert same(canonical_distance_map(wf.Grid(free), sources[0]), want)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=maps(), limit=st.floats(0, 40))
def test_limit_is_honoured(case, limit):
    free, sources = case
    grid = wf.Grid(free)
    want = GridSearch(grid).distance_map(sources, limit=limit, method="dijkstra")
    got = GridSearch(grid).distance_map(sources, limit=limit, method="canonical")
    assert same(got, want)
    assert np.all(got[np.isfinite(got)] <= limit)


@pytest.mark.parametrize("name", [
    "gen/random25", "gen/caves", "gen/maze1", "gen/city",
    *movingai_names("random/random512-25-0", "dao/arena2", "mazes/maze512-1-0")])
def test_equals_plain_dijkstra_on_game_maps(name):
    grid, _ = load(name)
    cells = np.argwhere(grid.passable)
    search = GridSearch(grid)
    for k in np.linspace(0, len(cells) - 1, 3).astype(int):
        source = (int(cells[k][1]), int(cells[k][0]))
        assert same(search.distance_map(source, method="canonical"),
                    search.distance_map(source, method="dijkstra"))


def test_open_map_is_one_sweep():
    grid = wf.Grid(np.ones((30, 40), dtype=bool))
    dist, stats = canonical_flood(grid, (7, 11))
    assert stats.pushes == 1 and stats.expanded == 1 and stats.reopened == 0
    assert stats.labels == 30 * 40 and len(stats.jump_points) == 0
    dx = np.abs(np.arange(40) - 7)[None, :]
    dy = np.abs(np.arange(30) - 11)[:, None]
    assert same(dist, np.maximum(dx, dy) + (math.sqrt(2) - 1) * np.minimum(dx, dy))


def test_jump_point_where_a_side_wall_ends():
    # The northward ray from S runs along the wall; the wall ends beside (1, 1).
    grid = wf.Grid.from_ascii("""
        ..
        ..
        #.
        #.
        #.""")
    dist, stats = canonical_flood(grid, (1, 4))
    assert stats.jump_points.tolist() == [[1, 1]]
    assert stats.pushes == 2
    assert same(dist, GridSearch(grid).distance_map((1, 4), method="dijkstra"))


def test_jump_point_needs_its_side_step():
    # Without corner cutting (0, 1) is reachable only by a westward step out of the jump
    # point (1, 1), not by the diagonal toward the ended wall (blocked by (1, 0)).
    grid = wf.Grid.from_ascii("""
        ##
        ..
        #.
        #.""")
    dist, stats = canonical_flood(grid, (1, 3))
    assert stats.jump_points.tolist() == [[1, 1]]
    assert dist[1, 0] == 3.0


def test_jump_point_reopened_from_a_shorter_direction():
    # (0, 3) is first a jump point at cost 6 (down the west column); the westward sweep
    # from the jump point (2, 3) reaches it at 4 + sqrt 2, where it is a jump point again (the
    # wall above (1, 3) ends): it is re-opened.
    grid = wf.Grid.from_ascii("""
        ....
        .#..
        .#.#
        ....""")
    dist, stats = canonical_flood(grid, (3, 0))
    assert stats.reopened >= 1
    assert [list(p) for p in stats.jump_points].count([0, 3]) == 2
    assert dist[3, 0] == pytest.approx(4 + math.sqrt(2), abs=1e-12)
    assert same(dist, GridSearch(grid).distance_map((3, 0), method="dijkstra"))


def test_auto_picks_canonical_only_where_it_applies():
    costs = np.ones((6, 7))
    costs[2, 1:5] = np.inf
    src = (0, 0)
    uniform = wf.Grid(costs)
    assert same(distance_map(uniform, src), GridSearch(uniform).distance_map(src,
                                                                             method="dijkstra"))
    weighted = costs.copy()
    weighted[4, 3] = 3.0
    for grid in (wf.Grid(weighted), wf.Grid(costs, diagonal="always"),
                 wf.Grid(costs, diagonal="never")):
        want = oracle_costs(grid.costs, grid.diagonal.value, src)
        assert same(GridSearch(grid).distance_map(src), want)
        with pytest.raises(InvalidGridError):
            GridSearch(grid).distance_map(src, method="canonical")
        with pytest.raises(InvalidGridError):
            canonical_distance_map(grid, src)


def test_agent_size_and_multiple_sources():
    grid = generated_grid("rooms")
    cells = np.argwhere(grid.for_agent(2).passable)
    srcs = [(int(c[1]), int(c[0])) for c in cells[::700]]
    search = GridSearch(grid)
    assert same(search.distance_map(srcs, agent_size=2, method="canonical"),
                search.distance_map(srcs, agent_size=2, method="dijkstra"))


def test_bad_input():
    grid = wf.Grid.from_ascii("""
        ..#
        ...""")
    search = GridSearch(grid)
    with pytest.raises(InvalidQueryError, match="method"):
        search.distance_map((0, 0), method="fast")
    with pytest.raises(InvalidQueryError, match="blocked"):
        canonical_distance_map(grid, (2, 0))
    with pytest.raises(InvalidQueryError, match="outside"):
        canonical_distance_map(grid, [(0, 0), (5, 5)])
    with pytest.raises(InvalidQueryError, match="limit"):
        canonical_distance_map(grid, (0, 0), limit=-1)
    for bad in (math.nan, -1, None, "2", True):
        with pytest.raises(InvalidQueryError, match="limit"):
            canonical_flood(grid, (0, 0), limit=bad)
    for bad in ("x", 5, np.zeros(100)):
        with pytest.raises(InvalidQueryError, match="workspace must be a Workspace"):
            canonical_flood(grid, (0, 0), workspace=bad)
    with pytest.raises(InvalidGridError):
        canonical_distance_map(np.ones((3, 3)), (0, 0))
