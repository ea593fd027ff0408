"""Integration fields: fast marching equal to scikit-fmm (first order everywhere; second
order where the two stencils coincide), within 2.1% / 0.3% of the Euclidean distance in the
open, Dijkstra fields equal to an independent shortest-path oracle, and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import dijkstra as scipy_dijkstra

from wayfinding import Grid, InvalidQueryError
from wayfinding.fields import dijkstra_field, eikonal_field, line_of_sight_times, visible_cells
from wayfinding.grid.generate import random_obstacles

skfmm = pytest.importorskip("skfmm")
HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large]


def skfmm_times(speed, sources, order, h=1.0):
    """scikit-fmm's travel times from point sources (phi = 0 there), walls masked."""
    phi = np.ones(speed.shape)
    for x, y in sources:
        phi[y, x] = 0.0
    phi = np.ma.MaskedArray(phi, speed <= 0)
    t = skfmm.travel_time(phi, np.where(speed > 0, speed, 1.0), dx=h, order=order)
    return np.ma.filled(t.astype(np.float64), np.inf)


@st.composite
def speed_maps(draw, max_side=40):
    h, w = draw(st.integers(2, max_side)), draw(st.integers(2, max_side))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["uniform", "levels", "smooth"]))
    if kind == "uniform":
        speed = np.ones((h, w))
    elif kind == "levels":
        speed = rng.choice([0.5, 1.0, 2.0], (h, w))
    else:
        speed = rng.uniform(0.3, 3.0, (h, w))
    speed[rng.random((h, w)) < draw(st.sampled_from([0.0, 0.1, 0.25]))] = 0.0
    free = np.argwhere(speed > 0)
    if not len(free):
        speed[0, 0] = 1.0
        free = np.argwhere(speed > 0)
    picks = rng.choice(len(free), min(len(free), draw(st.integers(1, 4))), replace=False)
    return speed, [(int(free[i][1]), int(free[i][0])) for i in picks]


@settings(max_examples=120, deadline=None, suppress_health_check=HEALTH)
@given(case=speed_maps(), h=st.sampled_from([1.0, 0.5, 2.5]))
def test_first_order_equals_scikit_fmm(case, h):
    speed, sources = case
    ours = eikonal_field(speed, sources, order=1, cell_size=h)
    theirs = skfmm_times(speed, sources, 1, h)
    np.testing.assert_array_equal(np.isfinite(ours), np.isfinite(theirs))
    np.testing.assert_allclose(ours[np.isfinite(ours)], theirs[np.isfinite(theirs)],
                               rtol=0, atol=1e-6)


@pytest.mark.parametrize("shape,source,h", [((41, 41), (20, 20), 1.0), ((30, 70), (3, 25), 0.5),
                                            ((64, 48), (47, 0), 2.0)])
def test_second_order_equals_scikit_fmm_in_the_open(shape, source, h):
    speed = np.full(shape, 1.7)
    ours = eikonal_field(speed, [source], order=2, cell_size=h)
    np.testing.assert_allclose(ours, skfmm_times(speed, [source], 2, h), rtol=0, atol=1e-6)


def test_second_order_keeps_the_stencil_upwind():
    # scikit-fmm's second-order stencil also takes the cell beyond a zero-time neighbour
    # (its signed-distance rule; here it gives cell 0 the time 1.1667 through the faster
    # cells on the other side) and can keep the second cell of one side with the first of
    # the other.  Ours uses the cell beyond only when it is frozen and not later.
    speed = np.array([[0.5, 1.0, 2.0, 4.0]])
    ours = eikonal_field(speed, [(1, 0)], order=2)
    np.testing.assert_allclose(ours[0], [2.0, 0.0, 0.5, 0.5 + 1 / 6 + 1 / 6])
    assert skfmm_times(speed, [(1, 0)], 2)[0, 0] == pytest.approx(7 / 6)


def circle_errors(order):
    """Relative errors against the exact distance outside a circle of radius 60, from the
    exact distances of the first ring of cells outside it."""
    n, r, c = 256, 60.0, 127.3
    yy, xx = np.mgrid[0:n, 0:n]
    exact = np.hypot(xx - c, yy - c) - r
    speed = np.where(exact < 0, 0.0, 1.0)
    initial = np.where((exact >= 0) & (exact < 1.0), exact, np.nan)
    t = eikonal_field(speed, initial=initial, order=order)
    far = exact > 5
    return np.abs(t[far] - exact[far]) / exact[far]


def test_fast_marching_is_close_to_euclidean_in_the_open():
    first, second = circle_errors(1), circle_errors(2)
    assert first.max() <= 0.021 and second.max() <= 0.003
    assert second.mean() < first.mean() / 10
    # 8-connected Dijkstra from a point is up to 8% long (the octile metric).
    grid = Grid(np.ones((200, 200), dtype=bool))
    yy, xx = np.mgrid[0:200, 0:200]
    exact = np.hypot(xx, yy)
    far = exact > 50
    err = (dijkstra_field(grid, [(0, 0)])[far] - exact[far]) / exact[far]
    assert 0.07 < err.max() < 0.0825


def test_field_basics():
    grid = Grid.from_ascii("""
        ....#...
        ....#...
        ........
        ###.###.
        .....#..""")
    for order in (1, 2):
        t = eikonal_field(grid, [(0, 0), (7, 4)], order=order)
        assert t[0, 0] == 0 and t[4, 7] == 0
        assert np.isinf(t[~grid.passable]).all() and np.isfinite(t[grid.passable]).all()
        assert (t[grid.passable] >= 0).all()
        limited = eikonal_field(grid, [(0, 0), (7, 4)], order=order, limit=2.5)
        np.testing.assert_array_equal(limited, np.where(t <= 2.5, t, np.inf))
    # Terrain: a cell's cost is its slowness.
    slow = Grid(np.full((5, 9), 3.0))
    np.testing.assert_allclose(eikonal_field(slow, [(0, 2)]),
                               3 * eikonal_field(Grid(np.ones((5, 9), dtype=bool)), [(0, 2)]))
    # Known times are kept and the march continues from them.
    initial = np.full((1, 5), np.nan)
    initial[0, 0] = 7.0
    assert eikonal_field(np.ones((1, 5)), initial=initial).tolist() == [[7, 8, 9, 10, 11]]


@settings(max_examples=60, deadline=None, suppress_health_check=HEALTH)
@given(data=st.data())
def test_dijkstra_field_equals_a_shortest_path_oracle(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    h, w = data.draw(st.integers(1, 15)), data.draw(st.integers(1, 15))
    costs = np.where(rng.random((h, w)) < 0.2, np.inf, rng.choice([1.0, 2.0, 4.5], (h, w)))
    rule = data.draw(st.sampled_from(["never", "no_corner_cutting", "allow_one_blocked",
                                      "always"]))
    grid = Grid(costs, diagonal=rule)
    free = np.argwhere(grid.passable)
    if not len(free):
        return
    picks = rng.choice(len(free), min(3, len(free)), replace=False)
    sources = [(int(free[i][1]), int(free[i][0])) for i in picks]
    g = grid.to_csr()
    oracle = scipy_dijkstra(g.to_scipy(), indices=[y * w + x for x, y in sources],
                            min_only=True).reshape(h, w)
    np.testing.assert_allclose(dijkstra_field(grid, sources), oracle, rtol=1e-12)


def test_bad_input():
    grid = Grid.from_ascii("..#")
    for bad, match in ((([(2, 0)],), "wall"), (([(5, 0)],), "outside"),
                       (([(0.5, 0)],), "integers"), (((),), "at least one"),
                       (([(math.inf, 0)],), "integers"), (([(True, 0)],), "integers"),
                       ((None,), "sequence of cells"), ((5,), "sequence of cells")):
        with pytest.raises(InvalidQueryError, match=match):
            eikonal_field(grid, *bad)
    with pytest.raises(InvalidQueryError, match="order"):
        eikonal_field(grid, [(0, 0)], order=3)
    with pytest.raises(InvalidQueryError, match="cell_size"):
        eikonal_field(grid, [(0, 0)], cell_size=0)
    with pytest.raises(InvalidQueryError, match="limit"):
        eikonal_field(grid, [(0, 0)], limit=-1)
    with pytest.raises(InvalidQueryError, match="speeds"):
        eikonal_field(np.array([[1.0, -1.0]]), [(0, 0)])
    with pytest.raises(InvalidQueryError, match="2D array"):
        eikonal_field(np.ones(3), [(0, 0)])
    with pytest.raises(InvalidQueryError, match="shape"):
        eikonal_field(grid, initial=np.zeros((2, 2)))
    with pytest.raises(InvalidQueryError, match="must be numbers"):
        eikonal_field(grid, initial=[["a", 1, 2]])
    with pytest.raises(InvalidQueryError, match="sequence of cells"):
        dijkstra_field(grid, None)
    with pytest.raises(InvalidQueryError, match="wall cell"):
        eikonal_field(grid, initial=np.array([[np.nan, np.nan, 1.0]]))
    with pytest.raises(InvalidQueryError, match=">= 0"):
        eikonal_field(grid, initial=np.array([[-1.0, np.nan, np.nan]]))
    with pytest.raises(InvalidQueryError, match="Grid"):
        dijkstra_field(np.ones((2, 2)), [(0, 0)])
    assert eikonal_field(grid, (0, 0)).tolist()[0][:2] == [0.0, 1.0]  # one cell as a pair
    assert math.isinf(eikonal_field(Grid.from_ascii(".#."), [(0, 0)])[0, 2])


@settings(max_examples=60, deadline=None, suppress_health_check=HEALTH)
@given(data=st.data())
def test_visible_cells_see_the_goal(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    h, w = data.draw(st.integers(1, 14)), data.draw(st.integers(1, 14))
    costs = np.where(rng.random((h, w)) < 0.2, np.inf,
                     rng.choice([1.0, 1.0, 1.0, 2.0], (h, w)))
    grid = Grid(costs, diagonal=data.draw(st.sampled_from(["never", "no_corner_cutting",
                                                           "allow_one_blocked", "always"])))
    free = np.argwhere(grid.passable)
    if not len(free):
        return
    gy, gx = free[rng.integers(len(free))]
    seen = visible_cells(grid, (int(gx), int(gy)))
    same = Grid(np.where(costs == costs[gy, gx], 1.0, np.inf), diagonal=grid.diagonal)
    sees = np.array([[same.passable[y, x] and same.line_of_sight((int(gx), int(gy)), (x, y))
                      for x in range(w)] for y in range(h)])
    assert not (seen & ~sees).any()            # every marked cell sees the goal
    # ...and every cell that sees it is marked when the region has no wall in it.
    if np.isfinite(costs).all() and (costs == costs[gy, gx]).all():
        np.testing.assert_array_equal(seen, sees)
    times = line_of_sight_times(grid, (int(gx), int(gy)))
    ys, xs = np.nonzero(seen)
    np.testing.assert_allclose(times[ys, xs], np.hypot(xs - gx, ys - gy) * costs[gy, gx])
    assert np.isnan(times[~seen]).all()


def geodesic_around_box(src, points, box):
    """Shortest Euclidean lengths from ``src`` to ``points`` around one open box
    (xmin, xmax, ymin, ymax): Dijkstra over the source, the box's corners and the point."""
    x0, x1, y0, y1 = box
    corners = [(x0, y0), (x1, y0), (x0, y1), (x1, y1)]

    def clear(a, b):
        # The segment misses the open box: sample it finely (the oracle needs no speed).
        s = np.linspace(0, 1, 400)[:, None]
        p = np.asarray(a) + s * (np.asarray(b) - np.asarray(a))
        inside = (p[:, 0] > x0 + 1e-9) & (p[:, 0] < x1 - 1e-9) \
            & (p[:, 1] > y0 + 1e-9) & (p[:, 1] < y1 - 1e-9)
        return not inside.any()

    out = []
    for q in points:
        nodes = [tuple(src)] + corners + [tuple(q)]
        dist = [0.0] + [math.inf] * (len(nodes) - 1)
        done = set()
        while len(done) < len(nodes):
            u = min((i for i in range(len(nodes)) if i not in done), key=dist.__getitem__)
            done.add(u)
            for v in range(len(nodes)):
                if v not in done and clear(nodes[u], nodes[v]):
                    dist[v] = min(dist[v], dist[u] + math.dist(nodes[u], nodes[v]))
        out.append(dist[-1])
    return np.array(out)


def test_line_of_sight_pass_gives_exact_times_where_the_goal_is_seen():
    grid = Grid.from_ascii("""
        ..................
        ..................
        ......####........
        ......####........
        ..................
        ..................""")
    goal = (2, 1)
    for order in (1, 2):
        t = eikonal_field(grid, [goal], order=order, los=True, cell_size=0.5)
        seen = visible_cells(grid, goal)
        ys, xs = np.nonzero(seen)
        np.testing.assert_allclose(t[ys, xs], 0.5 * np.hypot(xs - 2, ys - 1))
        plain = eikonal_field(grid, [goal], order=order, cell_size=0.5)
        hidden = grid.passable & ~seen
        assert hidden.any() and np.isfinite(t[hidden]).all()
        # Behind the block the march goes on from the seen region's edge, nearer to the
        # true (geodesic) distance than a march from the goal cell alone.
        ys, xs = np.nonzero(hidden)
        true = 0.5 * geodesic_around_box(goal, np.stack([xs, ys], 1), (5.5, 9.5, 1.5, 3.5))
        err_los = np.abs(t[ys, xs] - true) / true
        err_plain = np.abs(plain[ys, xs] - true) / true
        assert err_los.mean() < err_plain.mean() / 2 and err_los.max() <= err_plain.max()
    with pytest.raises(InvalidQueryError, match="exactly one source"):
        eikonal_field(grid, [(0, 0), (1, 0)], los=True)
    with pytest.raises(InvalidQueryError, match="Grid"):
        eikonal_field(np.ones((3, 3)), [(0, 0)], los=True)


@pytest.mark.parametrize("scale", [1e160, 1e250, 1e-160, 1e-300])
def test_fast_marching_scales_with_costs_up_to_the_largest_allowed(scale):
    # Travel times are linear in the costs: squaring a cost or a time must not overflow.
    costs = random_obstacles(12, 9, density=0.2, seed=3).costs
    source = tuple(int(v) for v in np.argwhere(np.isfinite(costs))[0][::-1])
    times = eikonal_field(Grid(costs), [source], order=1)
    reach = np.isfinite(times)
    scaled = eikonal_field(Grid(costs * scale), [source], order=1)
    np.testing.assert_array_equal(np.isfinite(scaled), reach)
    np.testing.assert_allclose(scaled[reach] / scale, times[reach], rtol=1e-13)
    initial = np.where(np.isfinite(costs) & (np.arange(12) == 0), 0.0, np.nan)
    start = eikonal_field(Grid(costs), initial=initial, order=1)
    moved = eikonal_field(Grid(costs * scale), initial=initial * scale, order=1)
    np.testing.assert_allclose(moved[np.isfinite(start)] / scale, start[np.isfinite(start)],
                               rtol=1e-13)


@pytest.mark.parametrize(("speed", "h"), [(1e-300, 1.0), (1e300, 1.0), (1.0, 1e300),
                                          (1.0, 1e-300)])
def test_fast_marching_with_extreme_speeds_and_spacings(speed, h):
    times = eikonal_field(np.full((3, 4), speed), [(0, 0)], order=1, cell_size=h)
    unit = eikonal_field(np.ones((3, 4)), [(0, 0)], order=1)
    np.testing.assert_allclose(times * speed / h, unit, rtol=1e-13)
