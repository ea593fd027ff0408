"""Hypothesis strategies shared by the tests: random grids, start and goal cells, random
graphs.

Two families of grids:

- *seeded* grids (:func:`seeded_grids`, ...) draw the side lengths, a numpy seed,
  an obstacle density and (optionally) whether to use terrain costs; numpy then fills the
  cells.  Large maps are cheap, and shrinking acts on sizes and density.
- *cellwise* grids (:func:`cellwise_grids`) draw every cell from Hypothesis, so that failures
  shrink to the fewest walls; keep them small.

Cells are ``(x, y)`` pairs of Python ints; arrays are indexed ``[y, x]``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from hypothesis import strategies as st

from wayfinding import AdjacencyGraph, CSRGraph, Grid

#: The diagonal rules, in the order the tests list them.
RULES = ("never", "no_corner_cutting", "allow_one_blocked", "always")
#: Obstacle densities of the seeded grids unless a test asks for others.
DENSITIES = (0.0, 0.1, 0.25, 0.4)
#: Terrain costs of the seeded weighted grids.
TERRAIN = (1.0, 1.5, 2.0, 5.0)
#: Seeds for numpy generators.
seeds = st.integers(0, 2**32 - 1)
#: Edge costs of the random graphs unless a test asks for others.
DIGITS = st.integers(0, 9)

_OPEN_CORNER = ("always", "if_empty", "never")


# ------------------------------------------------------------------------- seeded grids

@st.composite
def seeded_costs_and_rngs(draw: Any, *, min_side: int = 1, max_side: int = 24,
                          densities: Sequence[float] = DENSITIES,
                          terrain: Sequence[float] | None = None,
                          open_corner: str = "if_empty",
                          ) -> tuple[np.ndarray, np.random.Generator]:
    """A random cost array and the numpy generator that filled it (for further draws).

    Parameters
    ----------
    min_side, max_side
        Range of the height and of the width, drawn independently.
    densities
        The obstacle densities to draw from: each cell is a wall (``inf``) with that
        probability.
    terrain
        None: every free cell costs 1.  Otherwise half the arrays take each cell's cost
        from ``terrain`` (uniformly), the other half cost 1 everywhere.
    open_corner
        ``"always"``: cell (0, 0) is made free with cost 1; ``"if_empty"``: only when every
        cell is a wall, so that there is a free cell; ``"never"``: arrays may be all walls.

    Returns
    -------
    (costs, rng)
        ``costs``: (h, w) float64, ``inf`` for walls; ``rng``: the generator, as left.
    """
    if open_corner not in _OPEN_CORNER:
        raise ValueError(f"open_corner must be one of {_OPEN_CORNER}, got {open_corner!r}")
    h = draw(st.integers(min_side, max_side))
    w = draw(st.integers(min_side, max_side))
    rng = np.random.default_rng(draw(seeds))
    costs = np.ones((h, w))
    if terrain is not None and draw(st.booleans()):
        costs = rng.choice(terrain, size=(h, w))
    costs[rng.random((h, w)) < draw(st.sampled_from(densities))] = np.inf
    if open_corner == "always" or (open_corner == "if_empty" and np.isinf(costs).all()):
        costs[0, 0] = 1.0
    return costs, rng


@st.composite
def seeded_grids(draw: Any, *, rules: Sequence[str] | None = None, **options: Any) -> Grid:
    """Random :class:`Grid` objects: a cost array from :func:`seeded_costs_and_rngs`
    (``options``) and, when ``rules`` is given, a diagonal rule drawn from it (else the
    default rule)."""
    costs, _ = draw(seeded_costs_and_rngs(**options))
    return _grid(draw, costs, rules)


@st.composite
def seeded_grids_and_rngs(draw: Any, *, rules: Sequence[str] | None = None,
                          **options: Any) -> tuple[Grid, np.random.Generator]:
    """Like :func:`seeded_grids`, with the numpy generator that filled the grid, for the test's
    own random choices."""
    costs, rng = draw(seeded_costs_and_rngs(**options))
    return _grid(draw, costs, rules), rng


@st.composite
def endpoints(draw: Any, passable: np.ndarray) -> tuple[tuple[int, int], tuple[int, int]]:
    """A start and a goal cell, each drawn uniformly among the free cells of ``passable``
    ((h, w) bool, at least one True); they may be equal."""
    free = np.argwhere(passable)
    a = free[draw(st.integers(0, len(free) - 1))]
    b = free[draw(st.integers(0, len(free) - 1))]
    return (int(a[1]), int(a[0])), (int(b[1]), int(b[0]))


@st.composite
def seeded_cost_problems(draw: Any, **options: Any,
                         ) -> tuple[np.ndarray, tuple[int, int], tuple[int, int]]:
    """``(costs, start, goal)``: a cost array from :func:`seeded_costs_and_rngs` (``options``;
    ``open_corner`` may not be ``"never"``) and two of its free cells."""
    costs, _ = draw(seeded_costs_and_rngs(**options))
    start, goal = draw(endpoints(np.isfinite(costs)))
    return costs, start, goal


@st.composite
def seeded_grid_problems(draw: Any, *, rules: Sequence[str] | None = None,
                         **options: Any) -> tuple[Grid, tuple[int, int], tuple[int, int]]:
    """``(grid, start, goal)``: a grid as from :func:`seeded_grids` and two of its free cells."""
    costs, _ = draw(seeded_costs_and_rngs(**options))
    grid = _grid(draw, costs, rules)
    start, goal = draw(endpoints(grid.passable))
    return grid, start, goal


def _grid(draw: Any, costs: np.ndarray, rules: Sequence[str] | None) -> Grid:
    if rules is None:
        return Grid(costs)
    return Grid(costs, diagonal=draw(st.sampled_from(rules)))


# ----------------------------------------------------------------------- cellwise grids

@st.composite
def cellwise_grids(draw: Any, *, min_side: int = 1, max_side: int = 8,
                   terrains: Sequence[Sequence[float]] = ((1.0,), (1.0, 2.0, 3.5)),
                   walls: str = "as_cost", open_corner: bool = True,
                   rules: Sequence[str] = RULES) -> Grid:
    """Small random grids whose every cell Hypothesis draws.

    Parameters
    ----------
    min_side, max_side
        Range of the height and of the width, drawn independently.
    terrains
        Cost sets, one drawn per grid; each free cell's cost is drawn from it.
    walls
        ``"as_cost"``: each cell is drawn from the costs and ``inf`` alike (with k costs a
        cell is a wall with probability 1 / (k + 1)); ``"flag"``: each cell has its own
        free/wall flag (about half the cells walls) besides its cost.
    open_corner
        Cell (0, 0) is free with the first cost of the set.
    rules
        Diagonal rules to draw from.
    """
    h = draw(st.integers(min_side, max_side))
    w = draw(st.integers(min_side, max_side))
    terrain = draw(st.sampled_from(terrains))
    n = h * w
    if walls == "as_cost":
        cells = draw(st.lists(st.sampled_from([*terrain, math.inf]), min_size=n, max_size=n))
        costs = np.array(cells, dtype=float).reshape(h, w)
    elif walls == "flag":
        free = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        cells = draw(st.lists(st.sampled_from(terrain), min_size=n, max_size=n))
        costs = np.where(np.array(free).reshape(h, w), np.array(cells).reshape(h, w), np.inf)
    else:
        raise ValueError(f"walls must be 'as_cost' or 'flag', got {walls!r}")
    if open_corner:
        costs[0, 0] = terrain[0]
    return Grid(costs, diagonal=draw(st.sampled_from(rules)))


@st.composite
def cellwise_grid_problems(draw: Any, **options: Any) -> tuple[Grid, tuple[int, int],
                                                               tuple[int, int]]:
    """``(grid, start, goal)``: a grid from :func:`cellwise_grids` (``options``; keep
    ``open_corner``) and two of its free cells, each drawn uniformly."""
    grid = draw(cellwise_grids(**options))
    free = list(grid.iter_cells())
    return grid, draw(st.sampled_from(free)), draw(st.sampled_from(free))


# ------------------------------------------------------------------------------- graphs

@st.composite
def edge_lists(draw: Any, *, min_nodes: int = 2, max_nodes: int = 10,
               costs: st.SearchStrategy[Any] = DIGITS,
               max_edges: int = 30) -> tuple[int, list[tuple[int, int, Any]]]:
    """``(n, edges)``: a node count in [min_nodes, max_nodes] and up to ``max_edges``
    directed ``(a, b, cost)`` edges between nodes 0..n-1 (loops and parallel edges
    included), costs drawn from ``costs``."""
    n = draw(st.integers(min_nodes, max_nodes))
    node = st.integers(0, n - 1)
    return n, draw(st.lists(st.tuples(node, node, costs), max_size=max_edges))


@st.composite
def positioned_edge_lists(draw: Any, *, optional_coords: bool = False,
                          **options: Any) -> tuple[int, list[tuple[int, int, Any]],
                                                   np.ndarray | None]:
    """``(n, edges, coords)``: :func:`edge_lists` (``options``) with (n, 2) float64 integer
    coordinates in [0, 10]; with ``optional_coords``, ``coords`` is None half the time."""
    n, edges = draw(edge_lists(**options))
    xy = draw(st.lists(st.tuples(st.integers(0, 10), st.integers(0, 10)), min_size=n,
                       max_size=n))
    if optional_coords and not draw(st.booleans()):
        return n, edges, None
    return n, edges, np.array(xy, dtype=float)


@st.composite
def adjacency_problems(draw: Any, **options: Any) -> tuple[AdjacencyGraph, int, int]:
    """``(graph, start, goal)``: an :class:`AdjacencyGraph` over the nodes and edges of
    :func:`edge_lists` (``options``) and two of its nodes, each drawn uniformly."""
    n, edges = draw(edge_lists(**options))
    graph = AdjacencyGraph({u: [] for u in range(n)})
    for a, b, c in edges:
        graph.add_edge(a, b, c)
    node = st.integers(0, n - 1)
    return graph, draw(node), draw(node)


@st.composite
def seeded_csr_graphs(draw: Any, *, max_nodes: int = 14, dims: Sequence[int] = (2, 3),
                      weights: Sequence[str] = ("free", "ties", "geometric"),
                      ties: Sequence[float] = (0.0, 1.0, 2.0)) -> CSRGraph:
    """Random :class:`CSRGraph` objects with coordinates, filled by a seeded generator.

    Parameters
    ----------
    max_nodes
        Node count in [1, max_nodes]; edge count in [0, 4 n] (loops and parallel edges
        included).
    dims
        Coordinate dimensions to draw from; coordinates are integers in [-5, 5].
    weights
        Weight kinds to draw from: ``"free"`` uniform in [0, 100); ``"ties"`` drawn from
        ``ties`` (zero and equal weights); ``"geometric"`` the Euclidean length times a
        factor in [1, 2).
    """
    n = draw(st.integers(1, max_nodes))
    m = draw(st.integers(0, 4 * n))
    rng = np.random.default_rng(draw(seeds))
    src = rng.integers(0, n, m)
    dst = rng.integers(0, n, m)
    coords = rng.integers(-5, 6, (n, draw(st.sampled_from(dims)))).astype(float)
    kind = draw(st.sampled_from(weights))
    if kind == "free":
        w = rng.uniform(0, 100, m)
    elif kind == "ties":
        w = rng.choice(ties, m)
    else:
        w = np.linalg.norm(coords[src] - coords[dst], axis=1) * rng.uniform(1, 2, m)
    return CSRGraph.from_edges(n, src, dst, w, directed=draw(st.booleans()), coords=coords)
