"""Any-angle paths: the line-of-sight test against shapely, Theta* and Lazy Theta* against
the exact any-angle optimum, the exact optimum against the visibility map of the free
polygon, the smoothing of grid paths, the scenario runner and bad input."""

import math
from unittest import mock

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from movingai_data import movingai_names, movingai_scen_path, write_generated
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra
from shapely.geometry import LineString, Point, box

from wayfinding.bench import run_scenario
from wayfinding.errors import InvalidQueryError
from wayfinding.grid import AnyAngle, Grid, GridSearch, anyangle, generate
from wayfinding.navmesh.exact import VisibilityMap


def random_grid(seed, w=14, h=11, density=0.3, pinches=True):
    rng = np.random.default_rng(seed)
    free = rng.random((h, w)) >= density
    if not pinches:
        # Block a free cell at every corner where blocked cells touch only diagonally.
        while True:
            b = np.pad(~free, 1, constant_values=True)
            quads = np.stack([b[:-1, :-1], b[:-1, 1:], b[1:, :-1], b[1:, 1:]])
            pinch = (quads[0] == quads[3]) & (quads[1] == quads[2]) & (quads[0] != quads[1])
            ys, xs = np.nonzero(pinch)
            if not len(ys):
                break
            y, x = ys[0], xs[0]
            # The corner (x, y) lies between cells x - 1, x and rows y - 1, y.
            for cx, cy in ((x - 1, y - 1), (x, y - 1), (x - 1, y), (x, y)):
                if 0 <= cx < w and 0 <= cy < h and free[cy, cx]:
                    free[cy, cx] = False
                    break
    return Grid(free)


def blocked_union(grid):
    cells = [box(x, y, x + 1, y + 1) for y, x in np.argwhere(~grid.passable)]
    w, h = grid.width, grid.height
    frame = box(-1, -1, w + 1, h + 1).difference(box(0, 0, w, h))
    return shapely.union_all(cells + [frame])


def pinch_points(grid):
    b = np.pad(~grid.passable, 1, constant_values=True)
    out = []
    for y in range(grid.height + 1):
        for x in range(grid.width + 1):
            q = b[y:y + 2, x:x + 2]
            if q[0, 0] == q[1, 1] and q[0, 1] == q[1, 0] and q[0, 0] != q[0, 1]:
                out.append((x, y))
    return out


def oracle_sight(blocked, pinches, a, b):
    seg = LineString([a, b])
    if shapely.relate_pattern(seg, blocked, "T********"):    # interiors meet
        return False
    return not any(seg.distance(Point(p)) < 1e-12 and Point(p).distance(Point(a)) > 1e-12
                   and Point(p).distance(Point(b)) > 1e-12 for p in pinches)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_line_of_sight_matches_shapely(seed):
    grid = random_grid(seed, density=0.35)
    aa = AnyAngle(grid)
    blocked, pinches = blocked_union(grid), pinch_points(grid)
    rng = np.random.default_rng(seed)
    for _ in range(60):
        # Corners and cell centres, half of the pairs on one row or column.
        a = rng.integers(0, [2 * grid.width + 1, 2 * grid.height + 1]) / 2
        b = rng.integers(0, [2 * grid.width + 1, 2 * grid.height + 1]) / 2
        if rng.random() < 0.5:
            k = rng.integers(2)
            b[k] = a[k]
        if np.array_equal(a, b):
            continue
        assert aa.line_of_sight(a, b) == oracle_sight(blocked, pinches, a, b), (a, b)


def test_line_of_sight_cases():
    aa = AnyAngle(Grid.from_ascii("""
        ......
        .##...
        ...#..
        ......"""))
    assert not aa.line_of_sight((2, 1), (2, 2))      # between two blocked cells side by side
    assert aa.line_of_sight((1, 1), (3, 1))          # along a wall's face
    assert aa.line_of_sight((1, 2), (3, 2))          # along its other face
    assert not aa.line_of_sight((1.5, 0.5), (1.5, 2.5))   # through a blocked cell
    assert not aa.line_of_sight((3.5, 1.5), (2.5, 2.5))   # through the pinch at (3, 2)
    assert not aa.line_of_sight((3, 1), (3, 3))      # along a line through the pinch
    assert aa.line_of_sight((3.5, 1.5), (4.5, 2.5))  # grazes the single corner (4, 2)
    assert aa.line_of_sight((0, 0), (6, 0)) and aa.line_of_sight((0, 0), (0, 4))
    assert not aa.is_legal([(0.5, 0.5), (3.5, 1.5), (2.5, 2.5)])


def test_points_off_the_grid_are_out_of_sight():
    aa = AnyAngle(Grid(np.ones((3, 3), bool)))
    assert aa.line_of_sight((0, 0), (3, 3)) and aa.line_of_sight((0, 3), (3, 3))
    assert not aa.line_of_sight((-0.5, -0.5), (0, -0.5))      # in the frame of blocked cells
    assert not aa.line_of_sight((1, 5), (2, 5))               # past the frame
    assert not aa.line_of_sight((1e9, 0), (1e9, 1))           # read far out of the grid
    assert not aa.line_of_sight((0.5, 0.5), (1e300, 0.5))
    assert not aa.is_legal([(0.5, 0.5), (-3, 0.5)])


def test_ends_in_walls_are_out_of_sight():
    aa = AnyAngle(Grid.from_ascii(".##\n.##\n..."))
    assert not aa.line_of_sight((2, 1), (2, 1))               # on an edge inside the wall
    assert not aa.line_of_sight((2, 1), (2, 0))
    assert not aa.is_legal([(1.5, 0.5)])                      # a point in a blocked cell
    assert aa.is_legal([(0.5, 0.5)]) and aa.is_legal([(1, 1)]) and not aa.is_legal([])


@pytest.mark.parametrize("mirrored", [False, True])
def test_a_bend_at_a_pinch_corner_may_not_squeeze_through_it(mirrored):
    """Each leg of a bend at the pinch corner (1, 2) is in sight, but the path passes from
    one free cell of the pinch to the other, as no search path does.  (Mirrored in y = 2:
    the other diagonal.)"""
    rows = ["...", ".#.", "#..", "..."]
    aa = AnyAngle(Grid.from_ascii("\n".join(rows[::-1] if mirrored else rows)))
    for path, legal in [
            ([(0.5, 1.5), (1, 2), (1.5, 2.5)], False),            # squeezes through
            ([(0.5, 1.5), (1, 2), (1, 2), (1.5, 2.5)], False),    # a repeated point
            ([(0.5, 1.5), (1, 2), (2, 2), (2.5, 2.5)], False),    # onto the far side's edge
            ([(0.5, 1.5), (1, 2), (0.5, 1.75)], True),            # touches and comes back
            ([(1.5, 2.5), (1, 2), (1, 3), (0.5, 3.5)], True),     # stays on the free side
            ([(1.5, 2.5), (1, 2), (2, 2), (2.5, 1.5)], True)]:
        if mirrored:
            path = [(x, 4 - y) for x, y in path]
        assert all(aa.line_of_sight(a, b) for a, b in zip(path, path[1:])), path
        assert aa.is_legal(path) is legal, path


@pytest.mark.parametrize("path", ["abc", [[1, 2], [3]], np.zeros((2, 3)), [[[1.0]]]])
def test_is_legal_refuses_what_is_no_polyline(path):
    aa = AnyAngle(Grid(np.ones((2, 2), bool)))
    with pytest.raises(InvalidQueryError, match="path must be an"):
        aa.is_legal(path)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_exact_equals_the_visibility_map_and_bounds_the_others(seed):
    grid = random_grid(seed, pinches=False)
    aa = AnyAngle(grid)
    free = shapely.union_all([box(x, y, x + 1, y + 1) for y, x in np.argwhere(grid.passable)])
    cells = [tuple(c) for c in np.argwhere(grid.passable)[:, ::-1].tolist()]
    rng = np.random.default_rng(seed)
    search = GridSearch(grid)
    for _ in range(8):
        a, b = (cells[i] for i in rng.integers(len(cells), size=2))
        grid_path = search.find_path(a, b)
        exact = aa.find_path(a, b, method="any_angle")
        assert exact.found == grid_path.found
        if not exact.found:
            continue
        parts = [g for g in getattr(free, "geoms", [free]) if g.covers(Point(np.add(a, .5)))]
        ref = VisibilityMap(parts[0]).find_path(np.add(a, .5), np.add(b, .5))
        assert exact.cost == pytest.approx(ref.cost, rel=1e-9, abs=1e-9)
        assert exact.cost <= grid_path.cost + 1e-9
        for method in ("theta", "lazy_theta", "astar_smoothed"):
            r = aa.find_path(a, b, method=method)
            assert r.found and aa.is_legal(r.path)
            assert r.cost >= exact.cost - 1e-9 and r.cost <= grid_path.cost + 1e-9
            assert np.allclose(r.path[[0, -1]], np.add([a, b], 0.5))
            assert r.cost == pytest.approx(np.hypot(*np.diff(r.path, axis=0).T).sum())


def brute_force_length(aa, a, b):
    """Dijkstra (scipy) over every pair of lattice corners and the two centres in sight
    of each other: the shortest line-of-sight polyline, with no pruning at all.  Pinch
    corners are left out: a bend there squeezes through, or could cut the corner."""
    w, h = aa.grid.width, aa.grid.height
    q = np.pad(~aa.grid.passable, 1, constant_values=True)
    q = [q[:-1, :-1], q[:-1, 1:], q[1:, :-1], q[1:, 1:]]
    pinch = (q[0] == q[3]) & (q[1] == q[2]) & (q[0] != q[1])
    pts = [(x, y) for y in range(h + 1) for x in range(w + 1) if not pinch[y, x]]
    pts += [(a[0] + 0.5, a[1] + 0.5), (b[0] + 0.5, b[1] + 0.5)]
    n = len(pts)
    rows, cols, lens = [], [], []
    for i in range(n):
        for j in range(i + 1, n):
            if aa.line_of_sight(pts[i], pts[j]):
                rows.append(i)
                cols.append(j)
                lens.append(math.dist(pts[i], pts[j]))
    m = csr_matrix((lens, (rows, cols)), shape=(n, n))
    return float(dijkstra(m, directed=False, indices=n - 2)[n - 1])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_exact_equals_a_search_of_every_corner_pair_pinches_and_all(seed):
    # The exact search skips corners beyond its length bound and bends that do not wrap
    # their corner's blocked cell; the brute force tries every pair of corners.
    grid = random_grid(seed, w=9, h=7, density=0.3)
    aa = AnyAngle(grid)
    cells = [tuple(c) for c in np.argwhere(grid.passable)[:, ::-1].tolist()]
    rng = np.random.default_rng(seed)
    for _ in range(3):
        a, b = (cells[i] for i in rng.integers(len(cells), size=2))
        exact = aa.find_path(a, b, method="any_angle")
        assert exact.cost == pytest.approx(brute_force_length(aa, a, b), rel=1e-9, abs=1e-9)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), density=st.sampled_from([0.2, 0.35, 0.5]))
def test_the_lattice_bound_keeps_the_exact_length(seed, density):
    # Forced on (every query crowded and winding): the lower bound from the corner
    # lattice must never cut a shortest path off, pinches and all.
    grid = random_grid(seed, w=9, h=7, density=density)
    aa = AnyAngle(grid)
    cells = [tuple(c) for c in np.argwhere(grid.passable)[:, ::-1].tolist()]
    rng = np.random.default_rng(seed)
    with mock.patch.multiple(anyangle, TIGHTEN_ABOVE=-1, WINDING=0):
        for _ in range(3):
            a, b = (cells[i] for i in rng.integers(len(cells), size=2))
            exact = aa.find_path(a, b, method="any_angle")
            assert exact.cost == pytest.approx(brute_force_length(aa, a, b), rel=1e-9,
                                               abs=1e-9)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), density=st.sampled_from([0.1, 0.3, 0.5]))
def test_every_corner_in_sight_lies_within_the_sight_radius(seed, density):
    grid = random_grid(seed, w=11, h=9, density=density)
    aa = AnyAngle(grid)
    for cy in range(grid.height + 1):
        for cx in range(grid.width + 1):
            radius = aa._search.sight(cx, cy)
            seen = [max(abs(x - cx), abs(y - cy)) for y in range(grid.height + 1)
                    for x in range(grid.width + 1) if aa.line_of_sight((cx, cy), (x, y))]
            assert max(seen, default=0) <= radius, (cx, cy)


def test_the_sight_radius_gives_up_past_its_cap():
    # Open ground: sight lines run past the sweep's cap, which then bounds nothing.
    aa = AnyAngle(Grid(np.ones((10, 200), bool)))
    assert aa._search.sight(0, 5) > 64
    assert aa._search.sight(100, 0) > 64
    aa = AnyAngle(Grid.from_ascii(".#.\n...\n.#."))
    assert aa._search.sight(1, 1) == 2
    with pytest.raises(ValueError, match="on the grid"):
        aa._search.sight(4, 0)


def _open_field():
    free = np.ones((100, 300), bool)
    free[:70, 40:50] = False              # two walls: bends 200 cells apart
    free[30:, 250:260] = False
    return free


@pytest.mark.parametrize("make", [_open_field,
                                  lambda: np.random.default_rng(5).random((160, 160)) >= 0.25])
def test_crowded_queries_keep_their_lengths_with_every_bound(make):
    # Long queries, forced crowded (Lazy Theta*'s bound, the lattice bound, sight radii,
    # whether or not they reach past their cap) against none of them.
    free = make()
    aa = AnyAngle(Grid(free))
    cells = np.argwhere(free)[:, ::-1]
    rng = np.random.default_rng(5)
    pairs = [((0, 10), (299, 90))] if free.shape[1] == 300 else []
    pairs += [tuple(tuple(cells[i]) for i in rng.integers(len(cells), size=2))
              for _ in range(4)]
    for a, b in pairs:
        with mock.patch.multiple(anyangle, TIGHTEN_ABOVE=math.inf):
            plain = aa.find_path(a, b, method="any_angle").cost
        with mock.patch.multiple(anyangle, TIGHTEN_ABOVE=-1, WINDING=0):
            bounded = aa.find_path(a, b, method="any_angle").cost
        assert bounded == pytest.approx(plain, rel=1e-12)


def test_the_lattice_bound_prunes_winding_maps():
    # In a maze the straight line to the goal says little: bounding by the corner
    # lattice's distance as well takes a fraction of the sight checks (2.3 times fewer
    # over these queries, 1.4-15 times each), same lengths.
    aa = AnyAngle(generate.maze(121, 121, seed=3))
    cells = np.argwhere(aa.grid.passable)[:, ::-1]
    rng = np.random.default_rng(0)
    checks = {math.inf: 0, -1: 0}
    for _ in range(6):
        a, b = (tuple(cells[i]) for i in rng.integers(len(cells), size=2))
        costs = []
        for crowded in checks:
            with mock.patch.multiple(anyangle, TIGHTEN_ABOVE=crowded, WINDING=0):
                before = aa._search.los_checks
                costs.append(aa.find_path(a, b, method="any_angle").cost)
                checks[crowded] += aa._search.los_checks - before
        assert costs[1] == pytest.approx(costs[0], rel=1e-12)
    assert checks[-1] < checks[math.inf] / 2


def test_the_exact_search_keeps_to_the_ellipse_of_its_bound():
    # On a cluttered 200 x 200 grid a long query tries the corners near its path only:
    # trying every convex corner from every node expanded took 50-100 times the sight
    # checks.
    rng = np.random.default_rng(7)
    free = rng.random((200, 200)) >= 0.25
    free[[0, -1], :] = free[:, [0, -1]] = True
    aa = AnyAngle(Grid(free))
    before = aa._search.los_checks
    r = aa.find_path((0, 0), (199, 199), method="any_angle")
    checks = aa._search.los_checks - before
    convex = ((np.pad(~free, 1, constant_values=True)[:-1, :-1].astype(int)
               + np.pad(~free, 1, constant_values=True)[:-1, 1:]
               + np.pad(~free, 1, constant_values=True)[1:, :-1]
               + np.pad(~free, 1, constant_values=True)[1:, 1:]) == 1).sum()
    assert r.found and aa.is_legal(r.path)
    assert r.cost <= GridSearch(aa.grid).find_path((0, 0), (199, 199)).cost
    assert checks < r.stats.expanded * convex / 20


def test_open_grid_and_one_block():
    aa = AnyAngle(Grid(np.ones((9, 12), dtype=bool)))
    for method in ("theta", "lazy_theta", "any_angle"):
        r = aa.find_path((0, 0), (11, 5), method=method)
        assert len(r.path) == 2 and r.cost == pytest.approx(math.hypot(11, 5))
    aa = AnyAngle(Grid.from_ascii("""
        .....
        ..#..
        ....."""))
    r = aa.find_path((0, 1), (4, 1), method="any_angle")
    assert r.path.tolist() == [[0.5, 1.5], [2, 1], [3, 1], [4.5, 1.5]]
    assert aa.find_path((1, 1), (1, 1), method="theta").cost == 0


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_shortcut_keeps_the_farthest_point_in_sight(seed):
    # Against the rule run point by point with line_of_sight: points at half units, off
    # the grid, in blocked cells and at any real coordinates alike.
    grid = random_grid(seed, w=12, h=9, density=0.3)
    aa = AnyAngle(grid)
    rng = np.random.default_rng(seed)
    p = rng.integers(-2, 27, (rng.integers(3, 30), 2)) / 2
    p[rng.random(len(p)) < 0.2] += rng.uniform(-1, 1, 2)
    kept, i = [0], 0
    while i < len(p) - 1:
        j = len(p) - 1
        while j > i + 1 and not aa.line_of_sight(p[i], p[j]):
            j -= 1
        kept.append(j)
        i = j
    assert np.array_equal(aa.shortcut(p), p[kept])


def test_shortcut_refuses_points_that_are_not_finite():
    aa = AnyAngle(Grid(np.ones((3, 3), bool)))
    with pytest.raises(InvalidQueryError, match="finite"):
        aa.shortcut([[0.5, 0.5], [np.nan, 1.0], [2.5, 2.5]])
    assert len(aa.shortcut([[0.5, 0.5], [1e300, 1.0], [2.5, 2.5]])) == 2


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_smoothing_never_lengthens_and_stays_legal(seed):
    grid = random_grid(seed, w=20, h=16, density=0.25)
    aa = AnyAngle(grid)
    cells = np.argwhere(grid.passable)[:, ::-1]
    rng = np.random.default_rng(seed)
    a, b = (tuple(cells[i]) for i in rng.integers(len(cells), size=2))
    r = GridSearch(grid).find_path(a, b)
    if not r.found:
        return
    pulled = aa.string_pull(r.path)
    short = aa.shortcut(pulled)
    direct = aa.shortcut(r.path)
    for p in (pulled, short, direct):
        assert aa.is_legal(p)
        assert np.allclose(p[[0, -1]], r.path[[0, -1]] + 0.5)     # the last point is kept
    length = [np.hypot(*np.diff(p, axis=0).T).sum() for p in (pulled, short, direct)]
    assert length[0] <= r.cost + 1e-9 and length[1] <= length[0] + 1e-9
    assert length[2] <= r.cost + 1e-9


def test_theta_within_one_percent_of_exact_in_caves(tmp_path):
    _, scen = write_generated("caves", tmp_path)
    report = {}
    for method in ("any_angle", "theta", "lazy_theta", "astar_smoothed"):
        report[method] = run_scenario(scen, method=method, sample=60, show_progress=False)
        assert report[method].mismatches == 0 and report[method].solved == 60
    exact = report["any_angle"].mean_ratio
    assert exact < 0.97                           # any-angle paths are shorter than octile
    assert report["theta"].mean_ratio <= exact * 1.01
    assert report["lazy_theta"].mean_ratio <= exact * 1.01


def test_bad_input():
    with pytest.raises(InvalidQueryError, match="no_corner_cutting"):
        AnyAngle(Grid(np.ones((3, 3), bool), diagonal="never"))
    with pytest.raises(InvalidQueryError, match="uniform"):
        AnyAngle(Grid(np.array([[1.0, 2.0], [1.0, 1.0]])))
    aa = AnyAngle(Grid.from_ascii("..#\n..."))
    with pytest.raises(InvalidQueryError, match="blocked"):
        aa.find_path((0, 0), (2, 0))
    with pytest.raises(InvalidQueryError, match="unknown any-angle"):
        aa.find_path((0, 0), (1, 1), method="thetastar")
    with pytest.raises(InvalidQueryError, match="neighbouring"):
        aa.string_pull([(0, 0), (0, 2)])
    with pytest.raises(InvalidQueryError, match="legal"):
        AnyAngle(Grid.from_ascii(".#\n..")).string_pull([(0, 0), (1, 1)])


@pytest.mark.slow
@pytest.mark.parametrize("name", movingai_names())
def test_every_map_theta_near_exact(name):
    scen = movingai_scen_path(name)
    # Every path legal (the runner checks it), Theta* within 1% of the exact any-angle
    # optimum on average, never above the 8-connected optimum (up to its rounding).
    report = {a: run_scenario(scen, method=a, sample=40, show_progress=False)
              for a in ("any_angle", "theta", "lazy_theta", "astar_smoothed")}
    for r in report.values():
        assert r.mismatches == 0 and r.solved == r.problems
        assert r.max_ratio <= 1 + 1e-5          # the files give optima to 8 digits
    assert report["theta"].mean_ratio <= report["any_angle"].mean_ratio * 1.01
    assert report["lazy_theta"].mean_ratio <= report["any_angle"].mean_ratio * 1.01
