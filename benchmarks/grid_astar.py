"""Grid A* against the Python peers, on Moving AI problems, in one process.

Run from the repository root::

    python benchmarks/grid_astar.py [--data DIR] [--out BENCHMARKS.md] [--quick]

Every method answers the same queries (a start and a goal cell) and returns a path.  Only
the per-query call is timed (``time.perf_counter``); building a peer's structures once per
map is timed separately, and every method is warmed up once per map before timing.  Lengths
are measured in the Moving AI metric (straight 1, diagonal sqrt(2), no corner cutting) and
compared with the optimum within max(1e-3, 1e-5 x length).

Peers that are not installed are reported as such.  The slow ones (pure Python, or O(map)
work per call) run on an evenly spaced sample of each problem set and are compared with
wayfinding on that same sample.  See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import heapq
import importlib
import importlib.metadata
import math
import os
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from _report import find_data_dir, fmt_us, fmt_x, run_header, table, write_section

from wayfinding.grid import Grid, GridSearch, read_map, read_scen

SCENARIOS = ("dao/arena2", "dao/brc202d", "dao/den312d", "random/random512-25-0",
             "mazes/maze512-1-0")
SHORT_MAP = "dao/arena2"
SHORT_SEED = 20_240_601
SHORT_RANGE = (5.0, 20.0)
SECTION = "## Grid A* against the peers"
SQRT2 = math.sqrt(2.0)
# tcod's integer step costs: 8119 / 5741 = 1.41421355 (the ratio closest to sqrt(2) tested)
TCOD_CARDINAL, TCOD_DIAGONAL = 5741, 8119
# Problems per set for the slow peers (pure Python, or O(map) work on every call), evenly
# spaced over the set; everything else runs every problem.
SAMPLE = 100
SAMPLE_PATH2D = 500

Cell = tuple[int, int]


# ---------------------------------------------------------------------------- problems
@dataclass
class ProblemSet:
    """One map and its queries: ``starts[i] -> goals[i]`` with optimum ``optimal[i]``."""

    name: str
    grid: Grid
    starts: list[Cell]
    goals: list[Cell]
    optimal: np.ndarray
    long: bool  # a Moving AI scenario (True) or the short random set (False)
    total: int  # problems in the file (before --quick truncation)

    @property
    def passable(self) -> np.ndarray:
        return self.grid.passable

    def __len__(self) -> int:
        return len(self.starts)


def find_scen(data: Path, name: str) -> Path | None:
    """``<data>/scenarios/<set>/<map>.map.scen``, ``<data>/<set>/…`` or anywhere below."""
    base = name.split("/")[-1] + ".map.scen"
    for candidate in (data / "scenarios" / f"{name}.map.scen", data / f"{name}.map.scen"):
        if candidate.is_file():
            return candidate
    return next(iter(sorted(data.rglob(base))), None)


def load_scenario(data: Path, name: str, limit: int | None) -> ProblemSet | None:
    path = find_scen(data, name)
    if path is None:
        return None
    scen = read_scen(path)
    set_dir = name.rsplit("/", 1)[0]
    grid = read_map(scen.find_map(search=[data / "maps" / set_dir, data]))
    scen.check_map(grid)
    problems = list(scen)[:limit] if limit else list(scen)
    return ProblemSet(name, grid, [p.start for p in problems], [p.goal for p in problems],
                      np.array([p.optimal for p in problems]), True, len(scen))


def octile(dx: int, dy: int) -> float:
    dx, dy = abs(dx), abs(dy)
    return max(dx, dy) + (SQRT2 - 1.0) * min(dx, dy)


def short_problems(grid: Grid, count: int) -> tuple[list[Cell], list[Cell]]:
    """Seeded pairs of passable cells in one component at octile distance 5-20."""
    rng = np.random.default_rng(SHORT_SEED)
    comp = grid.components
    ys, xs = np.nonzero(grid.passable)
    lo, hi = SHORT_RANGE
    reach = int(hi)
    starts: list[Cell] = []
    goals: list[Cell] = []
    while len(starts) < count:
        k = int(rng.integers(len(xs)))
        dx, dy = (int(v) for v in rng.integers(-reach, reach + 1, size=2))
        sx, sy = int(xs[k]), int(ys[k])
        gx, gy = sx + dx, sy + dy
        if not (0 <= gx < grid.width and 0 <= gy < grid.height):
            continue
        if comp[gy, gx] < 0 or comp[gy, gx] != comp[sy, sx]:
            continue
        if not lo <= octile(dx, dy) <= hi:
            continue
        starts.append((sx, sy))
        goals.append((gx, gy))
    return starts, goals


MOVES = [(1, 0, 1.0), (-1, 0, 1.0), (0, 1, 1.0), (0, -1, 1.0),
         (1, 1, SQRT2), (1, -1, SQRT2), (-1, 1, SQRT2), (-1, -1, SQRT2)]


def reference_length(rows: list[list[bool]], start: Cell, goal: Cell) -> float:
    """Plain-Python Dijkstra (octile, no corner cutting): an optimum independent of the
    package, for the short set that has no scenario file."""
    h, w = len(rows), len(rows[0])
    best = {start: 0.0}
    heap = [(0.0, start)]
    done = set()
    while heap:
        d, cell = heapq.heappop(heap)
        if cell == goal:
            return d
        if cell in done:
            continue
        done.add(cell)
        x, y = cell
        for dx, dy, c in MOVES:
            nx, ny = x + dx, y + dy
            if not (0 <= nx < w and 0 <= ny < h) or not rows[ny][nx]:
                continue
            if dx and dy and not (rows[y][nx] and rows[ny][x]):
                continue
            nd = d + c
            if nd < best.get((nx, ny), math.inf):
                best[(nx, ny)] = nd
                heapq.heappush(heap, (nd, (nx, ny)))
    return math.inf


def load_short(base: ProblemSet, count: int) -> ProblemSet:
    starts, goals = short_problems(base.grid, count)
    rows = base.passable.tolist()
    optimal = np.array([reference_length(rows, s, g) for s, g in zip(starts, goals)])
    return ProblemSet("short (arena2)", base.grid, starts, goals, optimal, False, count)


# ---------------------------------------------------------------------------- paths
def octile_length(path: np.ndarray) -> float:
    """Moving AI length of a cell path (straight 1, diagonal sqrt(2))."""
    if len(path) < 2:
        return 0.0
    d = np.abs(np.diff(path, axis=0))
    diagonal = int(np.count_nonzero((d[:, 0] == 1) & (d[:, 1] == 1)))
    return float(len(d) - diagonal) + diagonal * SQRT2


def check_path(passable: np.ndarray, path: np.ndarray, start: Cell, goal: Cell
               ) -> tuple[bool, int]:
    """(valid, corner cuts): valid = right ends, king-move steps onto passable cells."""
    if len(path) == 0 or tuple(path[0]) != start or tuple(path[-1]) != goal:
        return False, 0
    x, y = path[:, 0], path[:, 1]
    h, w = passable.shape
    if x.min() < 0 or y.min() < 0 or x.max() >= w or y.max() >= h or not passable[y, x].all():
        return False, 0
    d = np.abs(np.diff(path, axis=0))
    if len(d) and (d.max(axis=1) != 1).any():
        return False, 0
    diag = (d[:, 0] == 1) & (d[:, 1] == 1)
    x0, y0, x1, y1 = x[:-1][diag], y[:-1][diag], x[1:][diag], y[1:][diag]
    cuts = int(np.count_nonzero(~(passable[y0, x1] & passable[y1, x0])))
    return True, cuts


def xy(path: Any) -> np.ndarray:
    return np.asarray(path, dtype=np.int64).reshape(-1, 2)


def rowcol(path: Any) -> np.ndarray:
    return xy(path)[:, ::-1]


# ---------------------------------------------------------------------------- methods
@dataclass
class Answer:
    path: np.ndarray | None  # (n, 2) cells (x, y), None when no path was returned
    length: float | None = None  # the method's own cost if it gives one, else from the path
    expanded: int | None = None


@dataclass
class Method:
    key: str
    label: str
    module: str  # import name: a missing one means "not installed"
    dist: str  # distribution name (for the version)
    rule: str  # movement rule, explaining any mismatch
    prepare: Callable[[ProblemSet], Any]
    solve: Callable[[Any, Cell, Cell], Any]  # the timed call
    decode: Callable[[Any, Any, Cell, Cell], Answer]  # untimed
    sample: int | None = None  # None: every problem; else this many, evenly spaced


def _wf_prepare(ps: ProblemSet) -> GridSearch:
    grid = ps.grid.with_options()  # a fresh grid: derived arrays are part of the set-up
    _ = grid.moves, grid.padded_costs, grid.components
    return GridSearch(grid)


def _wf_decode(search: GridSearch, r: Any, s: Cell, g: Cell) -> Answer:
    if not r.found:
        return Answer(None, expanded=r.stats.expanded)
    return Answer(xy(r.path), float(r.cost), r.stats.expanded)


def _w9_prepare(ps: ProblemSet) -> Any:
    from w9_pathfinding.envs import DiagonalMovement
    from w9_pathfinding.envs import Grid as W9Grid
    from w9_pathfinding.pf import AStar

    weights = np.where(ps.passable, 1.0, -1.0).tolist()  # -1 = obstacle
    env = W9Grid(weights, diagonal_movement=DiagonalMovement.only_when_no_obstacle,
                 diagonal_movement_cost_multiplier=SQRT2)
    return env, AStar(env)


def _pyastar_prepare(ps: ProblemSet) -> np.ndarray:
    import pyastar2d  # noqa: F401

    return np.where(ps.passable, 1.0, np.inf).astype(np.float32)


def _pyastar_solve(weights: np.ndarray, s: Cell, g: Cell) -> Any:
    import pyastar2d

    return pyastar2d.astar_path(weights, (s[1], s[0]), (g[1], g[0]), allow_diagonal=True)


def _tcod_legacy_prepare(ps: ProblemSet) -> Any:
    import tcod.path

    cost = np.ascontiguousarray(ps.passable.T.astype(np.int8))  # legacy arrays are [x, y]
    return tcod.path.AStar(cost, diagonal=SQRT2), cost


def _tcod_legacy_decode(ctx: Any, steps: Any, s: Cell, g: Cell) -> Answer:
    if s == g:
        return Answer(xy([s]))
    return Answer(xy([s, *steps]) if steps else None)  # get_path leaves out the start


def _tcod_path2d_prepare(ps: ProblemSet) -> np.ndarray:
    import tcod.path  # noqa: F401

    return ps.passable.astype(np.int8)


def _tcod_path2d_solve(cost: np.ndarray, s: Cell, g: Cell) -> Any:
    import tcod.path

    return tcod.path.path2d(cost, start_points=[(s[1], s[0])], end_points=[(g[1], g[0])],
                            cardinal=TCOD_CARDINAL, diagonal=TCOD_DIAGONAL)


def _networkx_prepare(ps: ProblemSet) -> Any:
    """An explicit graph: a diagonal edge only where its whole 2x2 block is free."""
    import networkx as nx

    grid = ps.passable
    h, w = grid.shape
    graph = nx.Graph()
    ys, xs = np.nonzero(grid)
    graph.add_nodes_from(zip(xs.tolist(), ys.tolist()))
    edges = []
    for dy, dx in ((0, 1), (1, 0)):
        yy, xx = np.nonzero(grid[:h - dy, :w - dx] & grid[dy:, dx:])
        edges += [((x, y), (x + dx, y + dy), 1.0) for x, y in zip(xx.tolist(), yy.tolist())]
    yy, xx = np.nonzero(grid[:-1, :-1] & grid[1:, 1:] & grid[:-1, 1:] & grid[1:, :-1])
    pairs = list(zip(xx.tolist(), yy.tolist()))
    edges += [((x, y), (x + 1, y + 1), SQRT2) for x, y in pairs]
    edges += [((x + 1, y), (x, y + 1), SQRT2) for x, y in pairs]
    graph.add_weighted_edges_from(edges, weight="weight")
    return graph


def _networkx_heuristic(a: Cell, b: Cell) -> float:
    return octile(a[0] - b[0], a[1] - b[1])


def _networkx_solve(graph: Any, s: Cell, g: Cell) -> Any:
    import networkx as nx

    try:
        return nx.astar_path(graph, s, g, heuristic=_networkx_heuristic, weight="weight")
    except (nx.NetworkXNoPath, nx.NodeNotFound):
        return None


def _pathfinding_prepare(ps: ProblemSet) -> Any:
    from pathfinding.core.diagonal_movement import DiagonalMovement
    from pathfinding.core.grid import Grid as PFGrid
    from pathfinding.finder.a_star import AStarFinder

    grid = PFGrid(matrix=ps.passable.astype(np.int8))  # find_path() resets it (cleanup)
    return grid, AStarFinder(diagonal_movement=DiagonalMovement.only_when_no_obstacle)


def _pathfinding_solve(ctx: Any, s: Cell, g: Cell) -> Any:
    grid, finder = ctx
    path, _runs = finder.find_path(grid.node(*s), grid.node(*g), grid)
    return path


def _skimage_prepare(ps: ProblemSet) -> Any:
    from skimage.graph import MCP_Geometric

    return MCP_Geometric(np.where(ps.passable, 1.0, np.inf), fully_connected=True)


def _skimage_solve(mcp: Any, s: Cell, g: Cell) -> Any:
    cum, _ = mcp.find_costs([(s[1], s[0])], [(g[1], g[0])])
    if not np.isfinite(cum[g[1], g[0]]):
        return None
    return mcp.traceback((g[1], g[0]))


def _path_or_none(path: Any) -> np.ndarray | None:
    return None if path is None or len(path) == 0 else xy(path)


def _rowcol_or_none(path: Any) -> np.ndarray | None:
    return None if path is None or len(path) == 0 else rowcol(path)


METHODS = [
    Method("wayfinding", "wayfinding `GridSearch.find_path`", "wayfinding", "wayfinding",
           "octile, no corner cutting (Moving AI)", _wf_prepare,
           lambda search, s, g: search.find_path(s, g), _wf_decode),
    Method("w9", "w9-pathfinding `AStar`", "w9_pathfinding", "w9-pathfinding",
           "multiplier √2, only_when_no_obstacle (Moving AI)", _w9_prepare,
           lambda ctx, s, g: ctx[1].find_path(s, g),
           lambda ctx, p, s, g: Answer(_path_or_none(p))),
    Method("pyastar2d", "pyastar2d `astar_path`", "pyastar2d", "pyastar2d",
           "every step costs 1 (Chebyshev) and cuts corners; no option for either",
           _pyastar_prepare, _pyastar_solve,
           lambda ctx, p, s, g: Answer(_rowcol_or_none(p))),
    Method("tcod_astar", "tcod legacy `AStar`", "tcod.path", "tcod",
           "octile (diagonal=√2) but cuts corners; no option", _tcod_legacy_prepare,
           lambda ctx, s, g: ctx[0].get_path(s[0], s[1], g[0], g[1]), _tcod_legacy_decode),
    Method("tcod_path2d", "tcod `path2d`", "tcod.path", "tcod",
           "integer octile 5741/8119, cuts corners; O(map) per call", _tcod_path2d_prepare,
           _tcod_path2d_solve, lambda ctx, p, s, g: Answer(_rowcol_or_none(p)),
           sample=SAMPLE_PATH2D),
    Method("networkx", "networkx `astar_path`", "networkx", "networkx",
           "explicit graph: octile, no corner cutting (Moving AI)", _networkx_prepare,
           _networkx_solve, lambda ctx, p, s, g: Answer(_path_or_none(p)), sample=SAMPLE),
    Method("pathfinding", "python-pathfinding `AStarFinder`", "pathfinding", "pathfinding",
           "only_when_no_obstacle, √2 (Moving AI); O(map) reset per call",
           _pathfinding_prepare, _pathfinding_solve,
           lambda ctx, p, s, g: Answer(None if not p else xy([(n.x, n.y) for n in p])),
           sample=SAMPLE),
    Method("skimage", "scikit-image `MCP_Geometric`", "skimage.graph", "scikit-image",
           "Dijkstra (no A*), octile, cuts corners; no option", _skimage_prepare,
           _skimage_solve, lambda ctx, p, s, g: Answer(_rowcol_or_none(p)), sample=SAMPLE),
]


def available(method: Method) -> str | None:
    """None if importable, else why not."""
    try:
        importlib.import_module(method.module)
    except ImportError:
        return "not installed"
    except Exception as exc:  # a broken install must not stop the benchmark
        return f"import failed: {type(exc).__name__}"
    return None


def version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


# ---------------------------------------------------------------------------- running
@dataclass
class Run:
    """One method on one problem set."""

    method: Method
    pset: ProblemSet
    index: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    times: np.ndarray = field(default_factory=lambda: np.empty(0))  # seconds, per index
    lengths: np.ndarray = field(default_factory=lambda: np.empty(0))  # nan = no path
    cuts: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    invalid: int = 0
    expanded: int = 0
    setup: float = 0.0
    nbytes: int = 0
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and len(self.index) > 0

    def matches(self) -> np.ndarray:
        opt = self.pset.optimal[self.index]
        tol = np.maximum(1e-3, 1e-5 * opt)
        return np.isfinite(self.lengths) & (np.abs(self.lengths - opt) <= tol)


def sample_index(n: int, k: int | None) -> np.ndarray:
    if k is None or k >= n:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, k).round().astype(np.int64))


def run_method(method: Method, pset: ProblemSet, index: np.ndarray) -> Run:
    run = Run(method, pset, index)
    starts, goals, passable = pset.starts, pset.goals, pset.passable
    solve, decode = method.solve, method.decode
    times = np.empty(len(index))
    lengths = np.full(len(index), np.nan)
    cuts = np.zeros(len(index), dtype=np.int64)
    clock = time.perf_counter
    try:
        gc.collect()
        t0 = clock()
        ctx = method.prepare(pset)
        run.setup = clock() - t0
        mid = int(index[len(index) // 2])
        solve(ctx, starts[mid], goals[mid])  # warm-up
        for k, i in enumerate(index.tolist()):
            s, g = starts[i], goals[i]
            t0 = clock()
            raw = solve(ctx, s, g)
            times[k] = clock() - t0
            ans = decode(ctx, raw, s, g)
            if ans.expanded is not None:
                run.expanded += ans.expanded
            if ans.path is None:
                continue
            valid, cuts[k] = check_path(passable, ans.path, s, g)
            if not valid:
                run.invalid += 1
                continue
            lengths[k] = ans.length if ans.length is not None else octile_length(ans.path)
        if isinstance(ctx, GridSearch):
            run.nbytes = ctx.nbytes
        del ctx
    except Exception as exc:  # report, do not crash the whole benchmark
        run.error = f"{type(exc).__name__}: {exc}"[:120]
    run.times, run.lengths, run.cuts = times, lengths, cuts
    return run


# ---------------------------------------------------------------------------- memory
def _malloc_trim() -> None:
    """Give freed heap pages back to the OS (glibc) so RSS growth is not hidden by reuse."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def rss_bytes() -> int | None:
    try:
        import psutil

        return int(psutil.Process().memory_info().rss)
    except ImportError:
        pass
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


@dataclass
class Memory:
    method: Method
    traced_setup: int = 0
    traced_query: int = 0
    rss_growth: int | None = None
    error: str | None = None


def measure_memory(method: Method, pset: ProblemSet, i: int) -> Memory:
    """Set-up plus one query, seen by tracemalloc (Python and numpy allocations) and as RSS
    growth (also C/C++ heaps), in a fresh state as far as one process allows."""
    mem = Memory(method)
    gc.collect()
    _malloc_trim()
    rss0 = rss_bytes()
    tracemalloc.start()
    try:
        ctx = method.prepare(pset)
        mem.traced_setup = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        result = method.solve(ctx, pset.starts[i], pset.goals[i])
        mem.traced_query = tracemalloc.get_traced_memory()[1] - mem.traced_setup
        overhead = tracemalloc.get_tracemalloc_memory()
        rss1 = rss_bytes()
        if rss0 is not None and rss1 is not None:
            mem.rss_growth = max(0, rss1 - rss0 - overhead)
        del ctx, result
    except Exception as exc:
        mem.error = f"{type(exc).__name__}: {exc}"[:120]
    finally:
        tracemalloc.stop()
    gc.collect()
    return mem


# ---------------------------------------------------------------------------- report
def mb(n: float | None) -> str:
    return "–" if n is None else f"{n / 2**20:,.1f}"


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else math.nan


@dataclass
class SetResult:
    pset: ProblemSet
    runs: dict[str, Run]
    skipped: dict[str, str]  # method key -> reason

    @property
    def wf(self) -> Run:
        return self.runs["wayfinding"]

    def wf_times(self, index: np.ndarray) -> np.ndarray:
        """wayfinding's times on these problem numbers (it runs every problem)."""
        pos = np.searchsorted(self.wf.index, index)
        return self.wf.times[pos]

    def speed_ratio(self, key: str) -> float:
        """Peer median / wayfinding median on the peer's problems."""
        run = self.runs.get(key)
        if run is None or not run.ok or not self.wf.ok:
            return math.nan
        return float(np.median(run.times) / np.median(self.wf_times(run.index)))

    def exact(self, key: str) -> bool:
        run = self.runs.get(key)
        return bool(run is not None and run.ok and run.matches().all())


def mismatch_text(run: Run) -> str:
    opt = run.pset.optimal[run.index]
    bad = ~run.matches()
    total = int(bad.sum())
    if total == 0:
        return "0"
    found = np.isfinite(run.lengths)
    parts = []
    shorter = int((bad & found & (run.lengths < opt)).sum())
    longer = int((bad & found & (run.lengths > opt)).sum())
    missing = int((bad & ~found).sum()) - run.invalid
    for n, word in ((shorter, "shorter"), (longer, "longer"), (missing, "no path"),
                    (run.invalid, "invalid")):
        if n:
            parts.append(f"{n:,} {word}")
    return f"{total:,} ({', '.join(parts)})"


def set_table(res: SetResult) -> str:
    rows = []
    for method in METHODS:
        if method.key in res.skipped:
            rows.append([method.label] + ["–"] * 5 + [res.skipped[method.key], "–", "–",
                                                      method.rule])
            continue
        run = res.runs[method.key]
        if not run.ok:
            rows.append([method.label] + ["–"] * 5 + [f"error: {run.error}", "–", "–",
                                                      method.rule])
            continue
        n = len(run.index)
        n_text = f"{n:,}" if n == len(res.pset) else f"{n:,} (sample)"
        rows.append([
            method.label, n_text, fmt_us(float(np.median(run.times))),
            fmt_us(float(np.percentile(run.times, 95))), fmt_us(float(np.mean(run.times))),
            "1 (ref.)" if method.key == "wayfinding" else fmt_x(res.speed_ratio(method.key)),
            f"{int(run.matches().sum()):,}/{n:,}", mismatch_text(run),
            f"{int((run.cuts > 0).sum()):,}", method.rule,
        ])
    header = ["method", "problems", "median µs", "p95 µs", "mean µs",
              "median ÷ wayfinding", "optimal", "mismatches", "paths cutting corners",
              "movement rule"]
    return table(header, rows)


def describe_set(ps: ProblemSet) -> str:
    h, w = ps.grid.shape
    free = int(ps.passable.sum())
    if ps.long:
        what = f"{len(ps):,} problems" + (f" (first {len(ps):,} of {ps.total:,})"
                                          if len(ps) < ps.total else "")
    else:
        lo, hi = SHORT_RANGE
        what = (f"{len(ps)} seeded random pairs (seed {SHORT_SEED}) in one component at "
                f"octile distance {lo:g}–{hi:g}; optimum from a plain-Python Dijkstra")
    opt = ps.optimal[np.isfinite(ps.optimal)]
    return (f"{w}×{h}, {free:,} passable cells; {what}; optimal lengths "
            f"{opt.min():.1f}–{opt.max():.1f}")


def wayfinding_table(results: list[SetResult]) -> str:
    rows = []
    for res in results:
        run = res.wf
        if not run.ok:
            continue
        cells = (res.pset.grid.height + 2) * (res.pset.grid.width + 2)
        total = float(run.times.sum())
        rows.append([res.pset.name, f"{len(run.index):,}", f"{run.expanded:,}",
                     f"{total * 1e6 / max(run.expanded, 1):.3f}", fmt_us(float(np.mean(run.times))),
                     f"{run.nbytes / 2**20:.2f}", f"{run.nbytes / cells:.1f}"])
    return table(["set", "problems", "nodes expanded", "µs / expansion", "mean µs",
                  "search state MB (`search.nbytes`)", "bytes / padded cell"], rows)


def setup_table(results: list[SetResult]) -> str:
    rows = []
    for method in METHODS:
        row = [method.label]
        for res in results:
            run = res.runs.get(method.key)
            row.append("–" if run is None or run.error else f"{run.setup * 1e3:,.1f}")
        rows.append(row)
    return table(["method"] + [r.pset.name for r in results], rows)


def overview_table(results: list[SetResult]) -> str:
    rows = []
    for method in METHODS[1:]:
        row = [method.label]
        for res in results:
            x = res.speed_ratio(method.key)
            mark = "" if not math.isfinite(x) or res.exact(method.key) else " ≠"
            row.append(fmt_x(x) + mark)
        rows.append(row)
    return table(["peer"] + [r.pset.name for r in results], rows)


def memory_table(mems: list[Memory], pset: ProblemSet, wf_nbytes: int) -> str:
    cells = pset.grid.height * pset.grid.width
    rows = []
    for m in mems:
        if m.error:
            rows.append([m.method.label, "–", "–", "–", "–", f"error: {m.error}"])
            continue
        per_cell = max(m.traced_setup + m.traced_query, m.rss_growth or 0) / cells
        note = ""
        if m.method.key == "wayfinding":
            note = f"search state (`search.nbytes`) {wf_nbytes / 2**20:.2f} MB"
        rows.append([m.method.label, mb(m.traced_setup), mb(m.traced_query),
                     mb(m.rss_growth), f"{per_cell:,.0f}", note])
    return table(["method", "set-up, traced MB", "query peak, traced MB", "RSS growth MB",
                  "≈ bytes / map cell", "note"], rows)


@dataclass
class Target:
    what: str
    target: str
    measured: str
    met: bool | None  # None: cannot be judged from this run


def targets(results: list[SetResult]) -> list[Target]:
    longs = [r for r in results if r.pset.long and r.wf.ok]
    out = []
    # wayfinding vs the fastest peer that returned the optimum on every problem of the set
    per, vals = [], []
    for res in longs:
        cands = [(res.speed_ratio(m.key), m) for m in METHODS[1:] if res.exact(m.key)]
        if not cands:
            continue
        best, m = min(cands, key=lambda c: c[0])  # smallest peer ÷ wayfinding = fastest
        vals.append(1.0 / best)
        per.append(f"{res.pset.name.split('/')[-1]} {1.0 / best:.2f} ({m.key})")
    g = geomean(vals)
    out.append(Target("long queries: wayfinding median ÷ fastest exact peer's median "
                      "(geometric mean over the scenario maps)", "≤ 0.7×",
                      f"{g:.2f}× — " + ", ".join(per) if vals else "no exact peer ran",
                      g <= 0.7 if vals else None))
    vals = [1.0 / res.speed_ratio("pyastar2d") for res in longs
            if math.isfinite(res.speed_ratio("pyastar2d"))]
    g = geomean(vals)
    out.append(Target("long queries: wayfinding median ÷ pyastar2d median (geometric mean)",
                      "≤ 1.0×",
                      f"{g:.2f}× — " + ", ".join(
                          f"{r.pset.name.split('/')[-1]} {1.0 / r.speed_ratio('pyastar2d'):.2f}"
                          for r in longs if math.isfinite(r.speed_ratio("pyastar2d")))
                      if vals else "pyastar2d did not run", g <= 1.0 if vals else None))
    short = next((r for r in results if not r.pset.long and r.wf.ok), None)
    if short is not None:
        med = float(np.median(short.wf.times)) * 1e6
        out.append(Target("short queries (octile 5–20): wayfinding median", "≤ 30 µs",
                          f"{med:.1f} µs", med <= 30))
    worst = max(((r.wf.nbytes / ((r.pset.grid.height + 2) * (r.pset.grid.width + 2)),
                  r.pset.name) for r in results if r.wf.ok), default=None)
    if worst:
        out.append(Target("search state per padded cell (`search.nbytes`, largest)",
                          "≤ 24 B", f"{worst[0]:.1f} B ({worst[1]})", worst[0] <= 24))
    exp = sum(r.wf.expanded for r in longs)
    if exp:
        v = sum(float(r.wf.times.sum()) for r in longs) * 1e6 / exp
        out.append(Target("µs per expanded node (all scenario problems)",
                          "0.13–0.15 (reference; met if ≤ 0.15)", f"{v:.3f}", v <= 0.15))
    for name, ref in (("dao/arena2", 730), ("dao/brc202d", 1970)):
        res = next((r for r in longs if r.pset.name == name), None)
        if res is None:
            continue
        mean = float(np.mean(res.wf.times)) * 1e6
        whole = len(res.pset) == res.pset.total
        out.append(Target(f"mean µs over the whole {name} scenario", f"≤ {ref} (reference)",
                          f"{mean:,.0f} µs" + ("" if whole else
                                              f" on the first {len(res.pset)} only"),
                          mean <= ref if whole else None))
    return out


def targets_table(items: list[Target]) -> str:
    word = {True: "met", False: "not met", None: "n/a (--quick)"}
    return table(["target", "goal", "measured", "status"],
                 [[t.what, t.target, t.measured, word[t.met]] for t in items])


def report(results: list[SetResult], mem_text: str, args: argparse.Namespace, data: Path,
           elapsed: float) -> str:
    dists = sorted({m.dist for m in METHODS[1:]})
    peers = ", ".join(f"{d} {version(d)}" for d in dists)
    sampled = "; ".join(f"{m.label} on {m.sample}" for m in METHODS if m.sample)
    parts = [
        run_header("grid_astar.py", None, data, elapsed,
                   extra=f"peers: {peers}; psutil {version('psutil')}"),
        "",
        "Every method answers the same queries in one process.  Only the per-query call "
        "is timed (`time.perf_counter`), after one warm-up query per map; building a "
        "method's structures is timed separately (set-up table).  Lengths are measured "
        "in the Moving AI metric (straight 1, diagonal √2, no corner cutting) from the "
        "returned path and compared with the optimum within max(1e-3, 1e-5 × length).  "
        f"Sampled peers (evenly spaced problems per set: {sampled}) are compared with "
        "wayfinding on the same sample.  "
        "Peers that cut corners or use another metric find paths the Moving AI rule "
        "forbids, or longer ones, so their times are for a different problem.",
        "",
        "### Targets",
        "",
        targets_table(targets(results)),
        "",
        "### Overview: peer median ÷ wayfinding median",
        "",
        "Above 1 means the peer is slower. ≠ marks a peer that missed the optimum on some "
        "problem of the set.",
        "",
        overview_table(results),
        "",
    ]
    for res in results:
        parts += [f"### {res.pset.name}", "", describe_set(res.pset), "", set_table(res), ""]
    parts += ["### wayfinding: expansions and search state", "", wayfinding_table(results), "",
              "### Set-up per map, ms (excluded from the query times)", "",
              setup_table(results), "", mem_text, ""]
    return "\n".join(parts)


# ---------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", help="Moving AI folder (maps/ and scenarios/); default: "
                    "$WAYFINDING_MOVINGAI, else ../shared/data/movingai beside the repository")
    ap.add_argument("--out", type=Path, help="Markdown file whose section "
                    f"'{SECTION}' is written or replaced")
    ap.add_argument("--quick", action="store_true",
                    help="first 100 problems per scenario and 50 short queries (smoke run)")
    args = ap.parse_args(argv)
    began = time.perf_counter()
    data = find_data_dir(args.data)
    limit = 100 if args.quick else None
    n_short = 50 if args.quick else 200

    skipped = {m.key: why for m in METHODS if (why := available(m))}
    if "wayfinding" in skipped:
        sys.exit("wayfinding itself cannot be imported")
    for key, why in skipped.items():
        print(f"{key}: {why}", file=sys.stderr)

    psets: list[ProblemSet] = []
    for name in SCENARIOS:
        ps = load_scenario(data, name, limit)
        if ps is None:
            print(f"{name}: no scenario file under {data}, skipped", file=sys.stderr)
            continue
        psets.append(ps)
        if name == SHORT_MAP:
            psets.insert(0, load_short(ps, n_short))
    if not psets:
        sys.exit(f"none of the scenarios found under {data}")

    results = []
    for ps in psets:
        res = SetResult(ps, {}, dict(skipped))
        for method in METHODS:
            if method.key in skipped:
                continue
            index = sample_index(len(ps), method.sample)
            t0 = time.perf_counter()
            run = res.runs[method.key] = run_method(method, ps, index)
            state = f"error {run.error}" if run.error else (
                f"median {fmt_us(float(np.median(run.times)))} µs, "
                f"{int(run.matches().sum())}/{len(index)} optimal")
            print(f"{ps.name:24s} {method.key:12s} {len(index):6d} problems  "
                  f"{time.perf_counter() - t0:7.1f} s  {state}", file=sys.stderr, flush=True)
        results.append(res)

    longs = [p for p in psets if p.long]
    big = max(longs or psets, key=lambda p: p.grid.height * p.grid.width)
    far = int(np.argmax(np.where(np.isfinite(big.optimal), big.optimal, -1)))
    mems = []
    for method in METHODS:
        if method.key not in skipped:
            mems.append(measure_memory(method, big, far))
            print(f"memory {method.key}", file=sys.stderr, flush=True)
    wf_nbytes = next(r.wf.nbytes for r in results if r.pset is big)
    mem_text = "\n".join([
        f"### Memory on {big.name} ({big.grid.width}×{big.grid.height}), set-up plus its "
        f"longest problem (optimum {big.optimal[far]:.1f})",
        "",
        "tracemalloc sees Python and numpy allocations but not C/C++ heaps; RSS growth "
        "(tracemalloc's own use removed, freed pages returned with malloc_trim first) sees "
        "those too, but misses memory the process had already touched.  Take the larger "
        "of the two as a rough lower bound.",
        "",
        memory_table(mems, big, wf_nbytes),
    ])

    text = report(results, mem_text, args, data, time.perf_counter() - began)
    print(text)
    if args.out:
        write_section(args.out, SECTION, text)
        print(f"wrote section '{SECTION}' in {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
