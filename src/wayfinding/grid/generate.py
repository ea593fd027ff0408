"""Seeded map generators and scenario files, for demos, tests and benchmarks.

Each generator returns a uniform-cost :class:`Grid` (``.`` passable, ``@`` blocked when
written) and is deterministic: the same arguments and ``seed`` give the same map on every
machine (numpy's PCG64 stream).  :func:`benchmark_scenario` draws start/goal pairs in the Moving AI
manner (buckets of ``floor(length / 4)``, ``per_bucket`` problems each) with optimal lengths
from the library's own Dijkstra, and :func:`save_benchmark` writes a ``.map`` and its ``.scen``.

>>> from wayfinding.grid import generate
>>> cave = generate.caves(48, 32, seed=1)
>>> cave.shape, cave.fingerprint == generate.caves(48, 32, seed=1).fingerprint
((32, 48), True)
>>> scen = generate.benchmark_scenario(cave, per_bucket=1, seed=1, map_name="cave.map")
>>> p = scen[0]
>>> from wayfinding import find_path
>>> p.matches(find_path(cave, p.start, p.goal).cost)
True
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from .._deprecated import warn
from .._validate import count, number
from ..errors import InvalidGridError, brief
from .grid import Grid
from .movingai import Problem, Scenario, write_map, write_scen
from .rules import Diagonal
from .search import GridSearch

#: Largest side a generator accepts (the grid itself caps the cell count too).
MAX_SIDE = 16384
#: Moving AI's bucket width: a problem of optimal length L sits in bucket ``floor(L / 4)``.
BUCKET_WIDTH = 4.0
#: Goals drawn from one start's flood, each in another bucket.
GOALS_PER_START = 8

__all__ = ["BUCKET_WIDTH", "GOALS_PER_START", "caves", "city", "maze", "random_obstacles",
           "rooms", "save_benchmark", "benchmark_scenario"]


# ------------------------------------------------------------------ argument checks
def _int(name: str, value: Any, lo: int, hi: int) -> int:
    return count(name, value, min=lo, max=hi, error=InvalidGridError)


def _float(name: str, value: Any, lo: float, hi: float, *, open_hi: bool = False) -> float:
    return number(name, value, min=lo, max=hi, max_open=open_hi, error=InvalidGridError)


def _size(width: Any, height: Any, least: int = 2) -> tuple[int, int]:
    return _int("width", width, least, MAX_SIDE), _int("height", height, least, MAX_SIDE)


def _rng(seed: Any) -> np.random.Generator:
    return np.random.default_rng(_int("seed", seed, 0, 2**63 - 1))


def _span(name: str, value: int | tuple[int, int], least: int) -> tuple[int, int]:
    """A ``(lo, hi)`` pair of integers, or one integer for both."""
    try:
        pair = (value, value) if isinstance(value, (int, np.integer)) else tuple(value)
    except TypeError:
        pair = ()
    if len(pair) != 2:
        raise InvalidGridError(f"{name} {brief(value)} must be an integer or a (min, max) pair")
    lo = _int(f"{name} minimum", pair[0], least, MAX_SIDE)
    hi = _int(f"{name} maximum", pair[1], lo, MAX_SIDE)
    return lo, hi


def _grid(free: np.ndarray) -> Grid:
    return Grid(free, diagonal=Diagonal.NO_CORNER_CUTTING)


# ------------------------------------------------------------------ generators
def random_obstacles(width: int, height: int, *, density: float = 0.25, seed: int = 0) -> Grid:
    """Each cell blocked independently with probability ``density`` in [0, 1) (the Moving AI
    ``random`` set uses 0.10 to 0.40)."""
    w, h = _size(width, height, 1)
    p = _float("density", density, 0.0, 1.0, open_hi=True)
    return _grid(_rng(seed).random((h, w)) >= p)


def caves(width: int, height: int, *, fill: float = 0.45, steps: int = 5,
          seed: int = 0) -> Grid:
    """Caves by cellular automaton: cells start as rock with probability ``fill`` in [0, 1),
    then ``steps`` times a cell becomes rock when 5 or more of the 9 cells of its 3 x 3
    neighbourhood are rock (outside the map counts as rock).  Fill 0.4–0.5 gives caverns;
    lower, open country."""
    w, h = _size(width, height)
    p = _float("fill", fill, 0.0, 1.0, open_hi=True)
    n = _int("steps", steps, 0, 100)
    rock = _rng(seed).random((h, w)) < p
    for _ in range(n):
        padded = np.pad(rock, 1, constant_values=True).astype(np.int8)
        count = np.zeros((h, w), dtype=np.int8)
        for dy in range(3):
            for dx in range(3):
                count += padded[dy:dy + h, dx:dx + w]
        rock = count >= 5
    return _grid(~rock)


def maze(width: int, height: int, *, corridor: int = 1, wall: int = 1, seed: int = 0) -> Grid:
    """A perfect maze (exactly one route between any two corridor cells, by a randomised
    depth-first search) with corridors ``corridor`` cells wide between walls ``wall`` cells
    thick, as the Moving AI ``mazes`` set (corridor widths 1 to 32).  The maze fills the
    largest whole number of corridor cells; what is left at the right and bottom is wall."""
    w, h = _size(width, height, 1)
    c = _int("corridor", corridor, 1, MAX_SIDE)
    t = _int("wall", wall, 1, MAX_SIDE)
    pitch = c + t
    nx, ny = max(1, (w + t) // pitch), max(1, (h + t) // pitch)
    if nx * pitch - t > w or ny * pitch - t > h:
        raise InvalidGridError(f"a {w}x{h} map holds no corridor of width {c}")
    rng = _rng(seed)
    free = np.zeros((h, w), dtype=bool)
    seen = np.zeros((ny, nx), dtype=bool)
    steps = ((1, 0), (-1, 0), (0, 1), (0, -1))
    start = (int(rng.integers(nx)), int(rng.integers(ny)))
    seen[start[1], start[0]] = True
    stack = [start]
    free[start[1] * pitch:start[1] * pitch + c, start[0] * pitch:start[0] * pitch + c] = True
    while stack:
        x, y = stack[-1]
        options = [(dx, dy) for dx, dy in steps
                   if 0 <= x + dx < nx and 0 <= y + dy < ny and not seen[y + dy, x + dx]]
        if not options:
            stack.pop()
            continue
        dx, dy = options[int(rng.integers(len(options)))]
        x2, y2 = x + dx, y + dy
        seen[y2, x2] = True
        x0, y0 = min(x, x2) * pitch, min(y, y2) * pitch
        free[y0:y0 + c + abs(dy) * pitch, x0:x0 + c + abs(dx) * pitch] = True
        stack.append((x2, y2))
    return _grid(free)


def rooms(width: int, height: int, *, rooms: int = 12, room_size: int | tuple[int, int] = (5, 14),
          corridor: int = 1, seed: int = 0) -> Grid:
    """Rooms and corridors: up to ``rooms`` rectangular rooms of sides in ``room_size``
    (``(min, max)`` or one integer) placed at random without overlapping (a one-cell wall
    between them), each joined to the next nearest by an L-shaped corridor ``corridor``
    cells wide, so that every room is reachable.  Fewer rooms are placed when the map is
    too small to hold them."""
    w, h = _size(width, height, 3)
    count = _int("rooms", rooms, 1, 10_000)
    lo, hi = _span("room_size", room_size, 1)
    cw = _int("corridor", corridor, 1, MAX_SIDE)
    if lo > w - 2 or lo > h - 2:
        raise InvalidGridError(f"rooms of side {lo} do not fit in a {w}x{h} map")
    rng = _rng(seed)
    free = np.zeros((h, w), dtype=bool)
    placed: list[tuple[int, int, int, int]] = []        # x0, y0, x1, y1 (exclusive)
    for _ in range(count * 30):
        if len(placed) == count:
            break
        rw = int(rng.integers(lo, min(hi, w - 2) + 1))
        rh = int(rng.integers(lo, min(hi, h - 2) + 1))
        x0, y0 = int(rng.integers(1, w - rw)), int(rng.integers(1, h - rh))
        box = (x0, y0, x0 + rw, y0 + rh)
        if any(box[0] <= b[2] and b[0] <= box[2] and box[1] <= b[3] and b[1] <= box[3]
               for b in placed):
            continue
        placed.append(box)
        free[y0:y0 + rh, x0:x0 + rw] = True
    centres = [((b[0] + b[2]) // 2, (b[1] + b[3]) // 2) for b in placed]
    joined = [centres[0]]
    for cx, cy in centres[1:]:
        near = min(joined, key=lambda q: (q[0] - cx) ** 2 + (q[1] - cy) ** 2)
        _corridor(free, (cx, cy), near, cw, bool(rng.integers(2)))
        joined.append((cx, cy))
    return _grid(free)


def _corridor(free: np.ndarray, a: tuple[int, int], b: tuple[int, int], width: int,
              horizontal_first: bool) -> None:
    """Carve an L-shaped corridor ``width`` cells wide from ``a`` to ``b``."""
    h, w = free.shape
    corner = (b[0], a[1]) if horizontal_first else (a[0], b[1])
    for (x0, y0), (x1, y1) in ((a, corner), (corner, b)):
        xa, xb = sorted((x0, x1))
        ya, yb = sorted((y0, y1))
        free[max(ya, 0):min(yb + width, h), max(xa, 0):min(xb + width, w)] = True


def city(width: int, height: int, *, block: int | tuple[int, int] = (8, 24),
         street: int | tuple[int, int] = (2, 4),
         park: float = 0.1, courtyard: float = 0.3, seed: int = 0) -> Grid:
    """City blocks, as the Moving AI street maps: rows and columns of buildings with sides in
    ``block`` cut by streets of widths in ``street`` (``(min, max)`` or one integer).  A
    block is left open as a park with probability ``park``; otherwise it is built, and
    hollowed into a courtyard joined to the street by a passage with probability
    ``courtyard``.  The map's edge is street."""
    w, h = _size(width, height)
    blo, bhi = _span("block", block, 1)
    slo, shi = _span("street", street, 1)
    p_park = _float("park", park, 0.0, 1.0)
    p_yard = _float("courtyard", courtyard, 0.0, 1.0)
    rng = _rng(seed)
    free = np.ones((h, w), dtype=bool)

    def cuts(length: int) -> list[tuple[int, int]]:
        spans, at = [], int(rng.integers(slo, shi + 1))
        while at + blo <= length - slo:
            size = min(int(rng.integers(blo, bhi + 1)), length - slo - at)
            spans.append((at, at + size))
            at += size + int(rng.integers(slo, shi + 1))
        return spans

    for y0, y1 in cuts(h):
        for x0, x1 in cuts(w):
            if rng.random() < p_park:
                continue
            free[y0:y1, x0:x1] = False
            if rng.random() < p_yard and x1 - x0 >= 5 and y1 - y0 >= 5:
                free[y0 + 2:y1 - 2, x0 + 2:x1 - 2] = True
                mid = (x0 + x1) // 2
                free[y0:y0 + 2, mid] = True
    return _grid(free)


# ------------------------------------------------------------------ scenarios
def benchmark_scenario(grid: Grid, *, per_bucket: int = 10, problems: int | None = None,
                       seed: int = 0, map_name: str = "generated.map") -> Scenario:
    """Start/goal pairs on ``grid`` with their optimal lengths, in Moving AI buckets.

    Starts are drawn uniformly from the largest island; for each, one Dijkstra flood gives
    every cell's optimal length, and goals are drawn uniformly among the cells of up to
    :data:`GOALS_PER_START` random buckets (``floor(length / 4)``) that still hold fewer than
    ``per_bucket`` problems.  Drawing
    stops after ``problems`` problems (if given) or when 64 starts in a row find no bucket to
    fill.  Problems come out sorted by bucket, as in Moving AI files; lengths follow the
    grid's diagonal rule (the Moving AI rule for the generators' grids).
    """
    if not isinstance(grid, Grid):
        raise InvalidGridError(f"benchmark_scenario needs a Grid, got {type(grid).__name__}")
    k = _int("per_bucket", per_bucket, 1, 1_000_000)
    cap = math.inf if problems is None else _int("problems", problems, 1, 10_000_000)
    name = str(map_name)
    if not name or any(ch.isspace() for ch in name):
        raise InvalidGridError(f"map_name {brief(map_name)} must be a non-empty name without "
                               "spaces")
    rng = _rng(seed)
    comp = grid.components
    ids, sizes = np.unique(comp[comp >= 0], return_counts=True)
    if ids.size == 0:
        raise InvalidGridError("the grid has no passable cell to draw problems from")
    ys, xs = np.nonzero(comp == ids[np.argmax(sizes)])
    search = GridSearch(grid)
    filled: dict[int, int] = {}
    out: list[Problem] = []
    misses = 0
    while len(out) < cap and misses < 64:
        i = int(rng.integers(xs.size))
        start = (int(xs[i]), int(ys[i]))
        dist = search.distance_map(start)
        bucket = np.floor(dist / BUCKET_WIDTH)
        reach = np.isfinite(dist) & (dist > 0)
        # Buckets as floats and Python ints: on costly terrain they pass int64.
        open_ = [b for b in np.unique(bucket[reach]).tolist() if filled.get(int(b), 0) < k]
        if not open_:
            misses += 1
            continue
        misses = 0
        for b in rng.permutation(open_)[:GOALS_PER_START]:
            if len(out) >= cap:
                break
            gy, gx = np.nonzero(reach & (bucket == b))
            j = int(rng.integers(gx.size))
            goal = (int(gx[j]), int(gy[j]))
            filled[int(b)] = filled.get(int(b), 0) + 1
            out.append(Problem(int(b), name, grid.width, grid.height, start, goal,
                               float(dist[goal[1], goal[0]])))
    out.sort(key=lambda p: p.bucket)
    return Scenario(out)


def save_benchmark(grid: Grid, path: str | os.PathLike, **options: Any) -> tuple[Path, Path]:
    """Write ``grid`` as a Moving AI ``.map`` at ``path`` and a :func:`benchmark_scenario`
    drawn on it (``options`` as there) as ``<path>.scen`` beside it; return both paths."""
    target = Path(path)
    scen = benchmark_scenario(grid, map_name=target.name, **options)
    write_map(grid, target)
    return target, write_scen(scen, target.with_name(target.name + ".scen"))


def scenario(grid: Grid, **options: Any) -> Scenario:
    """Deprecated name of :func:`benchmark_scenario`."""
    warn("generate.scenario()", "generate.benchmark_scenario()")
    return benchmark_scenario(grid, **options)
