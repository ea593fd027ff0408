"""Smooth-path optimisation: the operators and the projection, the weight curve of the
notes, the straight evenly spaced result without smoothness, feasibility, facing and
convergence, and a grid corridor."""

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.grid import Grid, GridSearch
from wayfinding.paths.optimize import (
    bathtub_weights,
    grid_clear,
    grid_corridor,
    kink,
    project,
    smooth_corridor,
    step_backward,
    step_forward,
)


def test_operators_are_adjoint():
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(2, 12, 2))
    h = 0.7
    assert np.sum(step_forward(x, h) * y) == pytest.approx(np.sum(x * -step_backward(y, h)))
    assert np.sum(kink(x, h) * y) == pytest.approx(np.sum(x * kink(y, h)))


def test_projection():
    c, r = np.array([[0.0, 0.0], [5.0, 5.0]]), np.array([1.0, 2.0])
    inside = np.array([[0.5, 0.0], [5.0, 6.0]])
    assert np.array_equal(project(inside, c, r), inside)
    out = project(np.array([[3.0, 4.0], [5.0, 5.0]]), c, np.array([1.0, 0.0]))
    assert np.allclose(out, [[0.6, 0.8], [5.0, 5.0]])


def test_bathtub_weights_of_the_notes():
    w = bathtub_weights(20, 10, 10, 2)
    expected = [0, 10.0, 6.8491, 4.7357, 3.4024, 2.6284, 2.2300, 2.0599, 2.0078, 2.0001]
    assert np.allclose(w[:10], expected, atol=1e-4)
    assert np.allclose(w, w[::-1], atol=1e-4) and w[-1] == 0


def zigzag(n=12):
    x = np.linspace(0, 11, n)
    return np.column_stack([x, np.where(np.arange(n) % 2, 1.0, -1.0) * (0 < x) * (x < 11)])


def test_no_smoothness_gives_the_straight_evenly_spaced_path():
    c = zigzag()
    r = np.full(len(c), 3.0)
    out = smooth_corridor(c, r, (1, 0), (1, 0), weights=np.zeros(len(c) + 2),
                          iterations=3000, trace=True)
    pts = out.points
    assert np.allclose(pts[:, 1], 0, atol=2e-3)                  # collinear
    gaps = np.diff(pts[:, 0])
    assert np.allclose(gaps, gaps.mean(), atol=5e-3)              # evenly spaced
    assert out.length == pytest.approx(11, abs=1e-2)


def test_feasible_fixed_ends_facing_and_converging():
    c = zigzag()
    r = np.full(len(c), 0.8)
    r[0] = r[-1] = 0.0
    runs = {}
    for ws in (2.0, 30.0):
        runs[ws] = smooth_corridor(c, r, (0, 1), (0, 1), weights=(ws, ws, 2.0),
                                   iterations=200, trace=True)
    for out in runs.values():
        for pts in out.history:
            assert np.all(np.linalg.norm(pts - c, axis=1) <= r + 1e-9)
            assert np.array_equal(pts[[0, -1]], c[[0, -1]])
        assert out.energy[-1] < out.energy[0]
    # A high start weight aligns the first step with the facing direction (0, 1).
    def angle(pts):
        d = pts[1] - pts[0]
        return np.arccos(d[1] / np.linalg.norm(d))
    assert angle(runs[30.0].points) < angle(runs[2.0].points)
    long = smooth_corridor(c, r, (0, 1), (0, 1), weights=(30, 30, 2), iterations=1000,
                           trace=True)
    assert long.energy[199] == pytest.approx(long.energy[-1], rel=0.05)


def test_grid_corridor_stays_in_free_space():
    grid = Grid.from_ascii("""
        ..........
        ..######..
        ..........
        ..........""")
    path = GridSearch(grid).find_path((0, 0), (9, 3)).path
    centres, radii = grid_corridor(grid, path)
    out = smooth_corridor(centres, radii, (1, 0), (1, 0), iterations=150)
    # Every waypoint stays in its disk, which lies in free cells.
    blocked = np.argwhere(~grid.passable)[:, ::-1] + 0.5
    for p in out.points:
        gap = np.max(np.abs(blocked - p), axis=1).min()
        assert gap >= 0.5 - 1e-9
    assert out.length <= np.hypot(*np.diff(centres, axis=0).T).sum() + 1e-9


def _wall_overlap(grid, pts):
    """The longest run of each segment of ``pts`` inside the grid's blocked squares."""
    shapely = pytest.importorskip("shapely")
    ys, xs = np.nonzero(~grid.passable)
    walls = shapely.union_all(shapely.box(xs, ys, xs + 1, ys + 1))
    lines = shapely.linestrings(np.stack([pts[:-1], pts[1:]], axis=1))
    return shapely.length(shapely.intersection(lines, walls))


@pytest.mark.parametrize("seed", range(6))
def test_grid_corridor_segments_stay_clear_of_the_walls(seed):
    from wayfinding.grid.generate import caves

    grid = caves(40, 30, fill=0.42, seed=seed)
    rng = np.random.default_rng(seed)
    free = np.argwhere(grid.passable)[:, ::-1]
    search, checked = GridSearch(grid), 0
    while checked < 8:
        a, b = free[rng.choice(len(free), 2, replace=False)]
        path = search.find_path(tuple(a), tuple(b)).path
        if len(path) < 8:
            continue
        checked += 1
        centres, radii = grid_corridor(grid, path)
        out = smooth_corridor(centres, radii, centres[1] - centres[0],
                              centres[-1] - centres[-2], iterations=100,
                              clear=grid_clear(grid))
        assert np.all(np.linalg.norm(out.points - centres, axis=1) <= radii + 1e-9)
        assert _wall_overlap(grid, out.points).max() <= 1e-9


@pytest.mark.parametrize("answer, match", [(lambda p, q: np.zeros(len(p), bool), "not clear"),
                                           (lambda p, q: np.ones(2, bool), "clear must give"),
                                           (lambda p, q: np.ones(len(p), bool), None)])
def test_clear_is_obeyed_or_refused(answer, match):
    c = zigzag()
    r = np.full(len(c), 0.8)
    if match is None:
        out = smooth_corridor(c, r, (0, 1), (0, 1), clear=answer)
        plain = smooth_corridor(c, r, (0, 1), (0, 1))
        assert np.array_equal(out.points, plain.points)
    else:
        with pytest.raises(InvalidQueryError, match=match):
            smooth_corridor(c, r, (0, 1), (0, 1), clear=answer)


def test_bad_input():
    c = zigzag()
    with pytest.raises(InvalidQueryError, match="radii"):
        smooth_corridor(c, np.ones(3), (1, 0), (1, 0))
    with pytest.raises(InvalidQueryError, match="facing"):
        smooth_corridor(c, np.ones(len(c)), (0, 0), (1, 0))
    with pytest.raises(InvalidQueryError, match="alpha"):
        smooth_corridor(c, np.ones(len(c)), (1, 0), (1, 0), alpha=2)
    with pytest.raises(InvalidQueryError, match="weights"):
        smooth_corridor(c, np.ones(len(c)), (1, 0), (1, 0), weights=(1, 2))


@pytest.mark.parametrize("name", ["centres", "radii", "facing_start", "facing_goal", "weights"])
@pytest.mark.parametrize("value", ["x", [[1.0, 2.0], [3.0]], [True, False], 2**1100, None])
def test_arrays_that_are_not_numbers_are_refused(name, value):
    c = zigzag()
    args = {"centres": c, "radii": np.ones(len(c)), "facing_start": (1, 0),
            "facing_goal": (1, 0), "weights": (10.0, 10.0, 2.0)}
    args[name] = value
    with pytest.raises(InvalidQueryError, match=name):
        smooth_corridor(args.pop("centres"), args.pop("radii"), args.pop("facing_start"),
                        args.pop("facing_goal"), **args)
