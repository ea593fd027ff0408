"""Fast marching from source cells (the one-call kernel path) on small grids: equal to a
plain first-order fast-marching reference and to scikit-fmm, and its bad inputs."""

from __future__ import annotations

import heapq
import math

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.fields import eikonal_field
from wayfinding.grid import Grid


def reference_fmm(speed: np.ndarray, sources: list[tuple[int, int]]) -> np.ndarray:
    """Plain first-order fast marching (Dijkstra-like, lazy heap, upwind quadratic)."""
    h, w = speed.shape
    T = np.full((h, w), np.inf)
    done = np.zeros((h, w), dtype=bool)
    heap = [(0.0, y, x) for x, y in sources]
    for _, y, x in heap:
        T[y, x] = 0.0
    heapq.heapify(heap)

    def frozen(y: int, x: int) -> float:
        return T[y, x] if 0 <= y < h and 0 <= x < w and done[y, x] else math.inf

    while heap:
        t, y, x = heapq.heappop(heap)
        if done[y, x] or t > T[y, x]:
            continue
        done[y, x] = True
        for ny, nx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
            if not (0 <= ny < h and 0 <= nx < w) or done[ny, nx] or speed[ny, nx] == 0:
                continue
            a = min(frozen(ny - 1, nx), frozen(ny + 1, nx))
            b = min(frozen(ny, nx - 1), frozen(ny, nx + 1))
            f = 1.0 / speed[ny, nx]
            lo, hi = min(a, b), max(a, b)
            if hi < math.inf and (hi - lo) < f:
                new = (lo + hi + math.sqrt(2 * f * f - (hi - lo) ** 2)) / 2
            else:
                new = lo + f
            if new < T[ny, nx]:
                T[ny, nx] = new
                heapq.heappush(heap, (new, ny, nx))
    return T


@pytest.mark.parametrize("seed", range(12))
def test_small_grids_match_the_reference(seed: int) -> None:
    rng = np.random.default_rng(seed)
    h, w = (int(v) for v in rng.integers(2, 33, 2))
    speed = rng.uniform(0.5, 2.0, (h, w))
    speed[rng.random((h, w)) < 0.2] = 0.0
    sources = [(int(rng.integers(w)), int(rng.integers(h))) for _ in range(2)]
    for x, y in sources:
        speed[y, x] = 1.0
    ours = eikonal_field(speed, sources)
    ref = reference_fmm(speed, sources)
    assert np.array_equal(np.isinf(ours), np.isinf(ref))
    np.testing.assert_allclose(ours[np.isfinite(ref)], ref[np.isfinite(ref)], atol=1e-9)
    grid = Grid(np.where(speed > 0, 1.0 / np.where(speed > 0, speed, 1.0), np.inf))
    np.testing.assert_allclose(eikonal_field(grid, sources), ours, atol=1e-12)


def test_small_grid_matches_scikit_fmm() -> None:
    skfmm = pytest.importorskip("skfmm")
    n = 32
    yy, xx = np.mgrid[0:n, 0:n] / n
    speed = 1.25 + 0.75 * np.sin(9 * xx + 4 * yy) * np.cos(7 * yy)
    phi = np.ones((n, n))
    phi[3, 5] = 0.0
    for order in (1, 2):
        theirs = skfmm.travel_time(phi, speed, order=order)
        ours = eikonal_field(speed, [(5, 3)], order=order)
        tol = 1e-9 if order == 1 else 0.05
        np.testing.assert_allclose(ours, theirs, atol=tol * max(1.0, float(theirs.max())))


def test_limit_leaves_far_cells_infinite() -> None:
    speed = np.ones((8, 8))
    out = eikonal_field(speed, [(0, 0)], limit=3.0)
    ref = reference_fmm(speed, [(0, 0)])
    np.testing.assert_allclose(out[ref <= 3.0], ref[ref <= 3.0], atol=1e-12)
    assert np.isinf(out[ref > 3.0]).all()


@pytest.mark.parametrize(("world", "sources", "match"), [
    (np.ones((4, 4)), [(4, 0)], "outside"),
    (np.ones((4, 4)), [(0, -1)], "outside"),
    (np.ones((4, 4)), [(2**70, 0)], "outside"),
    (np.array([[1.0, 0.0], [1.0, 1.0]]), [(1, 0)], "wall"),
    (np.ones((4, 4)), [], "at least one source"),
    (np.array([[1.0, np.nan], [1.0, 1.0]]), [(0, 0)], "finite"),
    (np.array([[1.0, -1.0], [1.0, 1.0]]), [(0, 0)], "finite"),
    (np.array([[1.0, np.inf], [1.0, 1.0]]), [(0, 0)], "finite"),
    (np.ones((4, 4)), [(0.5, 0)], "integers"),
    (np.ones(4), [(0, 0)], "2D array"),
])
def test_bad_inputs(world: np.ndarray, sources: list, match: str) -> None:
    with pytest.raises(InvalidQueryError, match=match):
        eikonal_field(world, sources)


def test_wall_source_on_a_grid() -> None:
    grid = Grid(np.array([[True, False], [True, True]]))
    with pytest.raises(InvalidQueryError, match="wall"):
        eikonal_field(grid, [(1, 0)])


@pytest.mark.parametrize("sources", [
    [(1, 2), (3, 0)], ((1, 2), (3, 0)), np.array([[1, 2], [3, 0]]),
    np.array([[1, 2], [3, 0]], np.int32), np.array([[1, 2], [3, 0]], np.int64)[:, ::-1][:, ::-1],
    [[1, 2], [3, 0]], [(np.int64(1), 2), (3, np.int16(0))],
])
def test_every_form_of_the_sources_gives_one_field(sources) -> None:
    speed = np.random.default_rng(4).uniform(0.5, 2.0, (5, 6))
    expected = reference_fmm(speed, [(1, 2), (3, 0)])
    assert np.allclose(eikonal_field(speed, sources), expected, rtol=0, atol=1e-12)
    assert np.array_equal(eikonal_field(speed.astype(np.float32), sources),
                          eikonal_field(speed.astype(np.float32).astype(float), sources))


@pytest.mark.parametrize("sources, match", [
    ([(2**70, 0)], "outside"), ([(-1, 0)], "outside"), ([(True, 0)], "integers"),
    (np.array([[9, 0]]), "outside"), ([(1, 2, 3)], "pair"),
])
def test_bad_sources_in_every_form(sources, match) -> None:
    with pytest.raises(InvalidQueryError, match=match):
        eikonal_field(np.ones((4, 4)), sources)
