"""The Grid: construction, cells, world transform, line of sight, components, clearance."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import ndimage

from wayfinding import (
    Diagonal,
    Grid,
    InvalidGridError,
    InvalidQueryError,
    MapFormatError,
    find_path,
)

ROOM = """
.....
.###.
.....
"""


def test_from_bool_and_cost_arrays():
    g = Grid(np.array([[True, False], [True, True]]))
    assert g.costs.tolist() == [[1.0, math.inf], [1.0, 1.0]]
    w = Grid(np.array([[1, 2], [np.inf, 4]]))
    assert w.passable.tolist() == [[True, True], [False, True]]
    assert w.min_cost == 1.0 and not w.is_uniform


def test_arrays_are_read_only_and_copied():
    src = np.ones((2, 2))
    g = Grid(src)
    src[0, 0] = np.inf
    assert g.is_passable((0, 0))
    with pytest.raises(ValueError):
        g.costs[0, 0] = 5


BAD_ARRAYS = {
    "1d": (np.ones(3), "2D array"),
    "empty": (np.ones((0, 3)), "at least one cell"),
    "nan": (np.array([[1.0, np.nan]]), "(x=1, y=0) is NaN"),
    "zero": (np.array([[1.0, 0.0]]), "costs must be at least 2.2250738585072014e-308"),
    "negative": (np.array([[-1.0]]), "costs must be at least"),
    # Below the normal floats a diagonal step's cost rounds and A* was not optimal.
    "subnormal": (np.array([[1.0, 5e-324]]), "is 5e-324; costs must be at least"),
    "strings": (np.array([["a"]]), "bool or numeric"),
    "complex": (np.array([[1j]]), "bool or numeric"),
    "ragged": ([[1.0, 2.0], [3.0]], "rows of different lengths"),
    "ragged bools": ([[True, False], [True]], "rows of different lengths"),
    # A step between two such cells would cost inf, which means no step.
    "huge": (np.array([[1.0, 1e251]]), "(x=1, y=0) is 1e.251; costs must be at least .* and "
                                      "at most"),
}


def test_the_largest_costs_still_sum_to_finite_paths():
    g = Grid(np.full((2, 3), 1e250))
    r = find_path(g, (0, 0), (2, 1))
    assert r.found and r.cost == pytest.approx((1 + 2**0.5) * 1e250)
    assert g.step_cost((0, 0), (1, 0)) == 1e250
    assert g.to_csr().find_path(0, 5).cost == pytest.approx(r.cost)


@pytest.mark.parametrize("case", BAD_ARRAYS, ids=str)
def test_bad_arrays_are_refused(case):
    arr, msg = BAD_ARRAYS[case]
    with pytest.raises(InvalidGridError, match=msg.replace("(", r"\(").replace(")", r"\)")):
        Grid(arr)


@pytest.mark.parametrize("bad", [{"diagonal": "sometimes"}, {"cell_size": 0},
                                 {"cell_size": math.nan}, {"origin": (0, math.inf)}])
def test_bad_options_are_refused(bad):
    with pytest.raises(InvalidGridError):
        Grid(np.ones((2, 2)), **bad)


@pytest.mark.parametrize("tiles, msg", [
    (np.array([[300, 46], [46, 46]]), r"tile at \(x=0, y=0\) is 300, not the code of a printable"),
    (np.array([[46, 46], [46, 200]]), r"tile at \(x=1, y=1\) is 200"),
    (np.array([[46, 10], [46, 46]]), r"tile at \(x=1, y=0\) is 10"),
    (np.array([[46, 32], [46, 46]]), r"tile at \(x=1, y=0\) is 32"),
    (np.full((2, 2), 46.0), "integer character codes"),
    (np.ones((2, 2), dtype=bool), "integer character codes"),
    ("ab", r"tiles shape \(\) differs"),
    (np.full((3, 2), 46), r"tiles shape \(3, 2\) differs"),
])
def test_bad_tiles_are_refused(tiles, msg):
    """Tile codes are map characters: one that wraps in uint8, is no ASCII or is a control
    character or a space would make to_ascii crash or write a broken map."""
    with pytest.raises(InvalidGridError, match=msg):
        Grid(np.ones((2, 2)), tiles=tiles)


def test_tiles_keep_their_characters():
    g = Grid(np.array([[1.0, np.inf]]), tiles=np.array([[ord("~"), ord("@")]], dtype=np.int64))
    assert g.tiles.dtype == np.uint8 and g.to_ascii() == "~@"
    assert not g.tiles.flags.writeable


def test_ascii_pictures():
    g = Grid.from_ascii(ROOM)
    assert g.shape == (3, 5)
    assert not g.is_passable((1, 1)) and g.is_passable((0, 1))
    assert g.to_ascii() == ".....\n.###.\n....."
    water = Grid.from_ascii(".~.", terrain={"~": 3.0})
    assert water.costs.tolist() == [[1.0, 3.0, 1.0]]
    with pytest.raises(MapFormatError, match=r"unknown map character '\?'"):
        Grid.from_ascii("..?")
    with pytest.raises(MapFormatError, match="expected 3"):
        Grid.from_ascii("...\n..")
    for bad in (-1, 0, "3", True, None, math.nan, 1e251, -math.inf, 1e-310):
        with pytest.raises(InvalidGridError, match="costs must be numbers at least .* and at most"):
            Grid.from_ascii("..", terrain={".": bad})
    assert Grid.from_ascii(".~", terrain={"~": np.int64(4)}).costs.tolist() == [[1.0, 4.0]]
    assert Grid.from_ascii(".~", terrain={"~": math.inf}).costs.tolist() == [[1.0, math.inf]]


def test_diagonal_rules_parse():
    assert Grid(np.ones((1, 1)), diagonal="ALWAYS").diagonal is Diagonal.ALWAYS
    assert Grid(np.ones((1, 1)), diagonal=Diagonal.NEVER).diagonal is Diagonal.NEVER


@pytest.mark.parametrize("rule,expected", [
    ("never", [(1, 0)]),
    ("no_corner_cutting", [(1, 0)]),
    ("allow_one_blocked", [(1, 0), (1, 1)]),
    ("always", [(1, 0), (1, 1)]),
])
def test_neighbors_follow_the_diagonal_rule(rule, expected):
    g = Grid.from_ascii("..\n#.", diagonal=rule)
    assert [c for c, _ in g.neighbours((0, 0))] == expected


def test_step_costs_use_the_mean_of_both_cells():
    g = Grid(np.array([[1.0, 3.0], [1.0, 1.0]]), diagonal="always")
    steps = dict(g.neighbours((0, 0)))
    assert steps[(1, 0)] == 2.0
    assert steps[(1, 1)] == pytest.approx(math.sqrt(2))
    assert g.step_cost((1, 0), (0, 0)) == g.step_cost((0, 0), (1, 0))
    assert g.step_cost((0, 0), (0, 0)) == math.inf


def test_t14_tile_quantization():
    # seed001 T14: tile size 2; floor, not truncation, for negative coordinates.
    g = Grid(np.ones((4, 4)), cell_size=2.0)
    assert g.world_to_cell((3.9, 0.1)) == (1, 0)
    assert g.world_to_cell((-0.1, 5.0)) == (-1, 2)
    assert not g.in_bounds(g.world_to_cell((-0.1, 5.0)))
    assert g.cell_to_world((1, 0)) == (3.0, 1.0)


def test_world_transform_with_origin():
    g = Grid(np.ones((3, 3)), origin=(10.0, -5.0), cell_size=0.5)
    assert g.world_to_cell((10.0, -5.0)) == (0, 0)
    assert g.world_to_cell((11.49, -3.51)) == (2, 2)
    assert g.cell_to_world((2, 2)) == (11.25, -3.75)
    with pytest.raises(InvalidQueryError, match="NaN"):
        g.world_to_cell((math.nan, 0))


def test_t14_blocked_tile_has_no_incoming_connections():
    g = Grid.from_ascii("...\n.#.\n...", diagonal="always")
    for cell in g.iter_cells():
        assert (1, 1) not in [c for c, _ in g.neighbours(cell)]


LOS_MAP = """
.....
..#..
.....
"""


@pytest.mark.parametrize("a,b,rule,seen", [
    ((0, 0), (4, 0), "no_corner_cutting", True),
    ((0, 1), (4, 1), "no_corner_cutting", False),
    ((0, 2), (4, 0), "no_corner_cutting", False),   # crosses the wall's cell
    ((1, 0), (3, 2), "always", False),              # through the blocked centre
    ((0, 0), (0, 0), "never", True),
])
def test_line_of_sight(a, b, rule, seen):
    g = Grid.from_ascii(LOS_MAP, diagonal=rule)
    assert g.line_of_sight(a, b) is seen
    assert g.line_of_sight(b, a) is seen


@pytest.mark.parametrize("rule,seen", [("never", False), ("no_corner_cutting", False),
                                       ("allow_one_blocked", True), ("always", True)])
def test_line_of_sight_through_a_corner_follows_the_rule(rule, seen):
    g = Grid.from_ascii(".#\n..", diagonal=rule)
    assert g.line_of_sight((0, 0), (1, 1)) is seen
    both = Grid.from_ascii(".#\n#.", diagonal=rule)
    assert both.line_of_sight((0, 0), (1, 1)) is (rule == "always")


def sampled_sight(free, a, b, rule):
    """Reference: sample the segment between cell centres densely; at exact corner
    crossings apply the diagonal rule to the two side cells."""
    (ax, ay), (bx, by) = a, b
    n = 2 * max(1, abs(bx - ax)) * max(1, abs(by - ay)) * 40  # hits every corner crossing
    for k in range(n + 1):
        px = ax + 0.5 + (bx - ax) * k / n
        py = ay + 0.5 + (by - ay) * k / n
        if px == int(px) and py == int(py):
            X, Y = int(px), int(py)
            if (bx - ax) * (by - ay) > 0:
                sides = [free[Y - 1, X], free[Y, X - 1]]
            else:
                sides = [free[Y - 1, X - 1], free[Y, X]]
            if rule == "allow_one_blocked" and not any(sides):
                return False
            if rule in ("never", "no_corner_cutting") and not all(sides):
                return False
            continue
        if px == int(px) or py == int(py):
            continue  # on a cell edge: the cells on both sides are sampled next to it
        if not free[math.floor(py), math.floor(px)]:
            return False
    return True


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["never", "no_corner_cutting",
                                                   "allow_one_blocked", "always"]))
def test_line_of_sight_agrees_with_dense_sampling(seed, rule):
    rng = np.random.default_rng(seed)
    free = rng.random((12, 12)) > 0.2
    g = Grid(free, diagonal=rule)
    cells = np.argwhere(free)
    if len(cells) < 2:
        return
    (ay, ax), (by, bx) = cells[rng.choice(len(cells), 2, replace=False)]
    a, b = (int(ax), int(ay)), (int(bx), int(by))
    assert g.line_of_sight(a, b) is sampled_sight(free, a, b, rule)


def test_components_and_connected():
    g = Grid.from_ascii("..#..\n..#..\n#####\n.....")
    comp = g.components
    assert comp[0, 0] == comp[1, 1] != comp[0, 3]
    assert comp[2, 0] == -1
    assert g.connected((0, 0), (1, 1)) and not g.connected((0, 0), (4, 0))
    assert len({int(v) for v in comp.ravel() if v >= 0}) == 3


def test_isolated_cells_get_their_own_component():
    g = Grid.from_ascii(".#\n#.")
    assert not g.connected((0, 0), (1, 1))
    assert g.with_options(diagonal="always").connected((0, 0), (1, 1))


def test_square_clearance():
    g = Grid.from_ascii("""
    ....
    ....
    ..#.
    """)
    assert g.clearance.tolist() == [[2, 2, 2, 1], [2, 1, 1, 1], [1, 1, 0, 1]]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_clearance_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    free = rng.random((9, 11)) > 0.15
    g = Grid(free)
    h, w = free.shape
    for y in range(h):
        for x in range(w):
            k = 0
            while y + k < h and x + k < w and free[y:y + k + 1, x:x + k + 1].all():
                k += 1
            assert g.clearance[y, x] == k


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_obstacle_distance_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    free = rng.random((13, 17)) > 0.1
    pad = np.pad(free, 1, constant_values=False)
    want = ndimage.distance_transform_edt(pad)[1:-1, 1:-1]
    np.testing.assert_allclose(Grid(free).obstacle_distance, want, atol=1e-12)


def test_agent_size_blocks_cells_where_it_does_not_fit():
    g = Grid.from_ascii("""
    ......
    ......
    ..#...
    ......
    """)
    big = g.for_agent(2)
    assert not big.is_passable((1, 1)) and big.is_passable((0, 0))
    assert g.for_agent(2) is big and g.for_agent(1) is g
    for bad in (0, 1.5, True, "2"):
        with pytest.raises(InvalidQueryError, match="agent_size"):
            g.for_agent(bad)


def test_path_cost_checks_every_step():
    g = Grid.from_ascii("...\n.#.\n...")
    assert g.path_cost([(0, 0), (1, 0), (2, 0)]) == 2.0
    assert g.path_cost([(0, 0), (1, 1)]) == math.inf        # blocked cell
    assert g.path_cost([(1, 0), (2, 1)]) == math.inf        # cuts the corner
    assert g.path_cost([(0, 0), (2, 0)]) == math.inf        # not a step
    assert g.path_cost([(0, 0)]) == 0.0
    assert g.path_cost([(0, 0), (-1, 0)]) == math.inf      # leaves the grid
    assert g.path_cost([(0, 0), (0, 0)]) == math.inf       # standing still is no step
    assert g.path_cost([]) == math.inf
    assert g.path_cost(np.array([[0, 0], [1, 0]], dtype=np.int32)) == 1.0


@pytest.mark.parametrize("path", [
    [(0.5, 0), (1, 0)],                 # was truncated to (0, 0) and costed 1
    [(0, 0), (1.0, 0)],
    [(2**70, 0), (1, 0)],               # an OverflowError
    "ab",                               # a ValueError
    [(True, False), (True, True)],
    [0, 1, 2],
    [[0, 0], [1]],
])
def test_path_cost_refuses_what_is_no_path_of_cells(path):
    g = Grid.from_ascii("...\n.#.\n...")
    with pytest.raises(InvalidQueryError, match="integer .x, y. cells"):
        g.path_cost(path)


def test_fingerprint_tracks_costs_and_rule():
    a = Grid.from_ascii("..\n..")
    assert a.fingerprint == Grid.from_ascii("..\n..").fingerprint
    assert a.fingerprint != a.with_options(diagonal="never").fingerprint
    assert a.fingerprint != Grid.from_ascii("..\n.#").fingerprint


def test_to_csr_matches_neighbours():
    g = Grid.from_ascii("..#\n...\n#..", diagonal="allow_one_blocked")
    csr = g.to_csr()
    for (x, y) in g.iter_cells():
        got = sorted(csr.successors(y * g.width + x))
        want = sorted((cy * g.width + cx, c) for (cx, cy), c in g.neighbours((x, y)))
        assert got == want


def test_world_to_cells_matches_the_scalar_transform():
    grid = Grid(np.ones((4, 5), dtype=bool), origin=(-2.0, 3.0), cell_size=0.5)
    pts = np.array([(-2.0, 3.0), (0.49, 4.99), (-2.01, 3.2), (0.6, 3.1), (np.nan, 3.2)])
    cells, inside = grid.world_to_cells(pts)
    assert inside.tolist() == [True, True, False, False, False]
    for p, c in zip(pts[:2], cells[:2]):
        assert tuple(c) == grid.world_to_cell(p)
    assert ((cells >= 0) & (cells < (5, 4))).all()             # clipped onto the grid


@pytest.mark.parametrize("origin, cell_size, point", [
    ((0.0, 0.0), 1e-300, (1e10, 0.0)),          # the cell number passes the largest float
    ((-1e308, 0.0), 1.0, (1e308, 0.0)),         # so does the offset from the origin
    ((0.0, 0.0), 1e-300, (0.0, -1e10)),
])
def test_points_too_far_for_a_cell_number(origin, cell_size, point):
    grid = Grid(np.ones((3, 3)), origin=origin, cell_size=cell_size)
    with pytest.raises(InvalidQueryError, match="too far from the grid"):
        grid.world_to_cell(point)
    near = grid.cell_to_world((1, 2))
    cells, inside = grid.world_to_cells([point, near])
    assert inside.tolist() == [False, True] and tuple(cells[1]) == grid.world_to_cell(near)
    assert ((cells >= 0) & (cells < 3)).all()


@pytest.mark.parametrize("method", ["astar", "dijkstra", "jps", "jps2"])
def test_a_searched_grid_copies_and_pickles(method):
    """The compiled views a grid's searches cache are left out of a copy or a pickle and
    made again by the copy's first search."""
    import copy
    import pickle

    import wayfinding as wf

    grid = Grid.from_ascii("......\n.####.\n......")
    first = wf.find_path(grid, (0, 0), (5, 2), method=method)
    for other in (pickle.loads(pickle.dumps(grid)), copy.deepcopy(grid)):
        again = wf.find_path(other, (0, 0), (5, 2), method=method)
        assert again.cost == first.cost and again.path.tolist() == first.path.tolist()
        assert other.shape == grid.shape and (other.costs == grid.costs).all()
