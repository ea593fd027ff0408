"""Flow-field tiles: portal windows as the chapter's cases say, routes that lead every start
to its goal on the dev maps while integrating only the sectors they cross, the tile cache,
dirty-sector rebuilds after edits, islands, movement types, directions, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from movingai_data import all_names, load

from wayfinding import Grid, InvalidQueryError, Status
from wayfinding.fields import FlowTiles
from wayfinding.grid.generate import random_obstacles

MAPS = all_names()


def two_sectors(border_walls=()):
    """A 10 x 20 map: two 10-cell sectors side by side, walls on the left sector's side of
    the border at the given rows."""
    free = np.ones((10, 20), dtype=bool)
    for y in border_walls:
        free[y, 9] = False
    return FlowTiles(Grid(free), sector=10)


def test_windows_follow_the_border():
    open_ = two_sectors().windows()
    assert len(open_) == 1 and len(open_[0].cells_a) == 10          # one window, 2 portals
    assert open_[0].portal((0, 0)) == (9, 5) and open_[0].portal((1, 0)) == (10, 5)
    split = two_sectors([5]).windows()
    assert sorted(len(w.cells_a) for w in split) == [4, 5]           # a wall at cell 5
    assert two_sectors(range(10)).windows() == []                    # fully walled
    assert not two_sectors(range(10)).route((0, 0), (19, 0)).found


@pytest.mark.parametrize("name", MAPS)
def test_routes_lead_to_the_goal_on_every_dev_map(name):
    grid, scen = load(name)
    problems = scen.problems
    tiles = FlowTiles(grid, sector=16)
    for p in problems[::max(1, len(problems) // 12)]:
        built = tiles.stats["tiles_built"] + tiles.stats["cache_hits"]
        route = tiles.route(p.start, p.goal)
        assert route.found and not route.tiles      # tiles come when needed
        path = route.descend(p.start)
        # Only sectors on the route were integrated, one tile each.
        assert set(route.tiles) <= set(route.sectors)
        assert tiles.stats["tiles_built"] + tiles.stats["cache_hits"] - built \
            == len(route.tiles)
        assert route.prepare() == 0 and set(route.tiles) == set(route.sectors)
        assert tuple(path[0]) == tuple(p.start) and tuple(path[-1]) == tuple(p.goal)
        steps = np.abs(np.diff(path, axis=0))
        assert (steps.max(axis=1) == 1).all() and grid.passable[path[:, 1], path[:, 0]].all()
        cost = grid.path_cost(path)   # raises on an illegal step
        assert cost >= p.optimal - 0.01       # (optimal lengths are rounded)
        assert route.cost >= p.optimal - 0.01


def test_tiles_are_shared_through_the_same_windows():
    grid = Grid(np.ones((30, 60), dtype=bool))
    tiles = FlowTiles(grid, sector=10)
    first = tiles.route((1, 15), (58, 15))
    assert first.prepare(max_tiles=2) == len(first.sectors) - 2   # two per frame...
    assert first.prepare() == 0
    built = tiles.stats["tiles_built"]
    second = tiles.route((2, 14), (57, 16))     # another goal in the same sector
    second.prepare()
    assert tiles.stats["cache_hits"] >= len(second.sectors) - 2
    assert tiles.stats["tiles_built"] - built < len(second.sectors)
    assert first.tiles[(2, 1)] is second.tiles[(2, 1)]


def test_a_wall_stamped_across_a_corridor_reroutes_and_lifting_it_restores():
    text = """
        ..............................
        ..............................
        ..............................
        ###########################...
        ..............................
        .............................."""
    grid = Grid.from_ascii(text)
    tiles = FlowTiles(grid, sector=10)
    before = [(w.a, w.b, w.cells_a) for w in tiles.windows()]
    route = tiles.route((0, 0), (0, 5))
    assert route.valid and tuple(route.descend((0, 0))[-1]) == (0, 5)
    assert route.status == Status.FOUND
    stale = tiles.route((0, 0), (0, 5))
    wall = {(x, y): np.inf for x in (27, 28, 29) for y in (3,)}
    dirty = tiles.edit(wall)
    assert dirty == {(2, 0)}
    assert not route.valid and not stale.valid
    assert route.found and route.status == stale.status == Status.FAILED
    assert stale.tile((0, 0)) is None and stale.prepare() == len(stale.sectors)
    assert not tiles.route((0, 0), (0, 5)).found          # the map is cut in two now
    assert tiles.islands()[0, 0] != tiles.islands()[5, 0]
    tiles.edit({(x, 3): 1.0 for x in (27, 28, 29)})
    assert sorted(before) == sorted((w.a, w.b, w.cells_a) for w in tiles.windows())
    again = tiles.route((0, 0), (0, 5))
    assert tuple(again.descend((0, 0))[-1]) == (0, 5)
    gap = {(x, 3): 1.0 for x in (12,)}                     # a new door: a shorter way
    tiles.edit(gap)
    assert tiles.route((0, 0), (0, 5)).cost < again.cost and not again.valid


def test_movement_types_have_their_own_portals_and_routes():
    land = Grid.from_ascii("""
        ....................
        ....................
        ..........#.........
        ....................
        ....................""")
    water = np.ones(land.shape)
    water[:, 8:12] = np.inf        # a river across the map, fordable only by hovercraft
    water[0, 8:12] = 1.0           # ...and by land at a bridge on the top row
    tiles = FlowTiles({"land": Grid(water), "hover": land}, sector=5)
    by_land = tiles.route((0, 4), (19, 4), movement="land")
    by_hover = tiles.route((0, 4), (19, 4), movement="hover")
    assert by_land.found and by_hover.found
    land_path = by_land.descend((0, 4))
    assert (land_path[:, 1] == 0).any() and tuple(land_path[-1]) == (19, 4)   # the bridge
    assert by_hover.cost < by_land.cost
    assert len(tiles.windows(movement="land")) != len(tiles.windows(movement="hover"))
    tiles.edit({(9, 0): np.inf}, movement="land")          # the bridge falls
    assert not tiles.route((0, 4), (19, 4), movement="land").found
    assert tiles.route((0, 4), (19, 4), movement="hover").found


def test_directions_point_along_the_route():
    grid = Grid(np.ones((20, 40), dtype=bool))
    tiles = FlowTiles(grid, sector=10)
    route = tiles.route((1, 10), (38, 10))
    d = route.direction([(1.0, 10.0), (9.0, 10.0), (20.4, 10.3), (5.0, 0.0)])
    assert d[0, 0] > 0.9 and d[1, 0] > 0.9 and d[2, 0] > 0.9
    np.testing.assert_allclose(np.hypot(d[:3, 0], d[:3, 1]), 1.0)
    off = tiles.route((1, 1), (8, 1))                      # one sector only
    assert not off.direction([(30.0, 15.0)]).any()


def test_bad_input():
    grid = Grid.from_ascii("..#..")
    with pytest.raises(InvalidQueryError, match="Grid"):
        FlowTiles(np.ones((3, 3)))
    with pytest.raises(InvalidQueryError, match="one shape"):
        FlowTiles({"a": grid, "b": Grid(np.ones((2, 2)))})
    with pytest.raises(InvalidQueryError, match="sector"):
        FlowTiles(grid, sector=0)
    tiles = FlowTiles(grid, sector=2)
    with pytest.raises(InvalidQueryError, match="movement type"):
        tiles.route((0, 0), (1, 0), movement="boat")
    with pytest.raises(InvalidQueryError, match="blocked"):
        tiles.route((0, 0), (2, 0))
    for cost in (0, 5e-324):
        with pytest.raises(InvalidQueryError, match="at least 2.2250738585072014e-308"):
            tiles.edit({(0, 0): cost})
    with pytest.raises(InvalidQueryError, match="outside"):
        tiles.edit({(9, 0): 1.0})
    far = tiles.route((0, 0), (4, 0))
    assert not far.found and far.descend((0, 0)).tolist() == [[0, 0]]
    assert tiles.stats["tiles_built"] == 0


def test_clear_sectors_share_one_cost_field():
    grid = Grid(np.ones((20, 30), dtype=bool))
    tiles = FlowTiles(grid, sector=10)
    fields = {tiles.cost_field((c, r)) for c in range(3) for r in range(2)}
    assert len({id(f) for f in fields}) == 1                 # all six are clear
    tiles.edit({(15, 5): 4.0})                               # a swamp cell
    swamp = tiles.cost_field((1, 0))
    assert swamp.costs[5, 5] == 4.0 and swamp is not tiles.cost_field((0, 0))
    assert tiles.cost_field((2, 1)) is tiles.cost_field((0, 0))
    tiles.edit({(15, 5): 1.0})
    assert tiles.cost_field((1, 0)) is tiles.cost_field((0, 0))
    ragged = FlowTiles(Grid(np.ones((15, 15), dtype=bool)), sector=10)
    assert ragged.cost_field((1, 1)).shape == (5, 5)         # edge sectors are smaller


def test_one_sector_and_a_start_at_the_goal():
    grid = Grid(np.ones((5, 5), dtype=bool))
    whole = FlowTiles(grid, sector=10).route((0, 0), (4, 4))     # no portals at all
    assert whole.sectors == [(0, 0)] and tuple(whole.descend((0, 0))[-1]) == (4, 4)
    here = FlowTiles(grid, sector=2).route((3, 3), (3, 3))
    assert here.found and here.cost == 0.0 and here.descend((3, 3)).tolist() == [[3, 3]]
    single = FlowTiles(Grid(np.ones((1, 1), dtype=bool))).route((0, 0), (0, 0))
    assert single.found and single.step((0, 0)) is None


@pytest.mark.parametrize(("rows", "sector"), [((".#..", "#..."), 2),
                                              ((".#..", "#.#.", "...."), 4)])
def test_cells_linked_corner_to_corner_inside_a_tile_lead_on(rows, sector):
    # (0, 0) touches the rest only at a corner: fast marching cannot enter it.
    tiles = FlowTiles(Grid.from_ascii("\n".join(rows), diagonal="always"), sector=sector)
    route = tiles.route((0, 0), (3, 0))
    path = route.descend((0, 0))
    assert route.found and path[-1].tolist() == [3, 0]
    assert path[1].tolist() == [1, 1]


def test_tiles_lead_on_where_steps_add_nothing_to_the_field():
    # Costs far below the field's rounding: cells of one value must still lead on.
    costs = np.full((6, 12), 1e-300)
    costs[1:5, 5] = np.inf
    tiles = FlowTiles(Grid(costs), sector=4)
    route = tiles.route((0, 3), (11, 2))
    assert route.found and route.descend((0, 3))[-1].tolist() == [11, 2]


@pytest.mark.parametrize(("rows", "sector", "start", "goal"),
                         [((".#", "#."), 1, (0, 0), (1, 1)),             # a sector corner
                          (("..#.", ".#.."), 2, (0, 1), (3, 0))])         # along a border
def test_a_step_across_a_border_between_two_walls_is_a_window(rows, sector, start, goal):
    tiles = FlowTiles(Grid.from_ascii("\n".join(rows), diagonal="always"), sector=sector)
    route = tiles.route(start, goal)
    assert route.found and route.descend(start)[-1].tolist() == list(goal)
    assert route.descend(goal).tolist() == [list(goal)]


def test_corner_windows_follow_edits_of_the_cells_beside_them():
    tiles = FlowTiles(Grid.from_ascii(".#\n#.", diagonal="always"), sector=1)
    assert [len(w.cells_a) for w in tiles.windows()] == [1]
    tiles.edit({(1, 0): 1.0})                 # a straight way round: no corner window
    assert len(tiles.windows()) == 2 and tiles.route((0, 0), (1, 1)).found
    tiles.edit({(1, 0): np.inf})
    assert [w.cells_b for w in tiles.windows()] == [((1, 1),)]
    assert tiles.route((0, 0), (1, 1)).descend((0, 0)).tolist() == [[0, 0], [1, 1]]


def test_routes_between_sectors_joined_only_at_corners_lead_to_the_goal():
    grid = Grid(random_obstacles(6, 6, density=0.35, seed=1).costs, diagonal="always")
    route = FlowTiles(grid, sector=3).route((0, 0), (5, 4))
    assert route.found and route.descend((0, 0))[-1].tolist() == [5, 4]


@pytest.mark.parametrize("cost", ["x", None, True, np.nan, -1.0, 0.0, 1e300])
def test_a_refused_edit_changes_nothing(cost):
    grid = Grid(np.ones((6, 6), dtype=bool))
    tiles = FlowTiles(grid, sector=3)
    with pytest.raises(InvalidQueryError, match="cost"):
        tiles.edit({(0, 0): 1.0, (1, 1): cost})
    assert (tiles.islands() == 0).all() and tiles.cost_field((0, 0)).costs[1, 1] == 1.0
    assert tiles.route((0, 0), (5, 5)).descend((0, 0))[-1].tolist() == [5, 5]


def test_routes_refuse_cells_and_points_that_are_not_on_the_map():
    tiles = FlowTiles(Grid(np.ones((6, 6), dtype=bool)), sector=3)
    route = tiles.route((0, 0), (5, 5))
    for bad in [(0.5, 0), "ab", (9, 0), (-1, 0), (True, 0)]:
        with pytest.raises(InvalidQueryError, match="cell"):
            route.step(bad)
        with pytest.raises(InvalidQueryError, match="cell"):
            route.descend(bad)
    with pytest.raises(InvalidQueryError, match="points"):
        route.direction([(np.nan, 1.0)])
    assert route.direction([(1e300, 1.0), (-7.0, 2.0)]).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    with pytest.raises(InvalidQueryError, match="max_tiles"):
        route.prepare(max_tiles=-1)                  # built all but one tile
    assert route.tiles == {}
    for sector in [(2, 0), (0, -1), "ab", (0.0, 0)]:
        with pytest.raises(InvalidQueryError, match="sector"):
            tiles.cost_field(sector)
    with pytest.raises(InvalidQueryError, match="mapping"):
        tiles.edit([(0, 0, 2.0)])


@pytest.mark.parametrize("scale", [1e250, 1e-300])
def test_routes_on_grids_of_extreme_costs(scale):
    # A sector's crossing costs more than one edge may (2 * MAX_COST) at 1e250 a cell.
    costs = random_obstacles(16, 12, density=0.2, seed=4).costs
    tiles = FlowTiles(Grid(costs * scale), sector=4)
    plain = FlowTiles(Grid(costs), sector=4)
    free = [tuple(int(v) for v in c[::-1]) for c in np.argwhere(np.isfinite(costs))]
    start, goal = free[0], free[-1]
    route, unit = tiles.route(start, goal), plain.route(start, goal)
    assert route.found and route.sectors == unit.sectors
    assert route.cost == pytest.approx(unit.cost * scale, rel=1e-12)
    assert route.descend(start)[-1].tolist() == list(goal)
